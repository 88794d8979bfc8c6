package dev.infuse.udfs.dedup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class DedupTest {

  @Test
  void normalisationFoldsCaseWhitespaceAndPunctuation() {
    assertThat(TextNormalizer.normalize("  Hello,  World!\n\tIt's  ＡＢＣ. "))
        .isEqualTo("hello world it s abc");
    assertThat(TextNormalizer.normalize("end.Start")).isEqualTo("end start");
    assertThat(TextNormalizer.normalize(null)).isEmpty();
    assertThat(TextNormalizer.normalize(" ... ")).isEmpty();
    assertThat(TextNormalizer.exactHash("Hello, world"))
        .isEqualTo(TextNormalizer.exactHash("hello   WORLD!"))
        .hasSize(64);
    assertThat(TextNormalizer.exactHash("hello world 2"))
        .isNotEqualTo(TextNormalizer.exactHash("hello world"));
  }

  @Test
  void wordShinglesAreDistinctSortedAndStable() {
    long[] shingles = Shingles.words("a b c d e f a b c", 3);
    // a b c | b c d | c d e | d e f | e f a | f a b | (a b c repeats)
    assertThat(shingles).hasSize(6);
    assertThat(shingles).isSorted();
    assertThat(Shingles.words("A b, C d e f a b c!", 3)).containsExactly(shingles);
    assertThat(Shingles.words("two words", 5)).hasSize(1);
    assertThat(Shingles.words("   ", 5)).isEmpty();
    // The separator keeps word boundaries: "ab c" and "a bc" are different shingles.
    assertThat(Shingles.words("ab c", 2)).isNotEqualTo(Shingles.words("a bc", 2));
    assertThat(Shingles.characters("abcd", 2)).hasSize(3);
    assertThatThrownBy(() -> Shingles.words("x", 0))
        .hasMessageContaining("shingle size: got 0, expected >= 1");
  }

  @Test
  void exactJaccardOfShingleSets() {
    assertThat(Shingles.jaccard(new long[] {1, 2, 3, 4}, new long[] {3, 4, 5, 6}))
        .isEqualTo(2.0 / 6);
    assertThat(Shingles.jaccard(new long[0], new long[0])).isEqualTo(1.0);
  }

  @Test
  void minHashIsDeterministicFromSeedAndLength() {
    long[] shingles =
        Shingles.words("the quick brown fox jumps over the lazy dog again and again", 3);
    assertThat(new MinHasher(64, 7).signature(shingles))
        .containsExactly(new MinHasher(64, 7).signature(shingles));
    assertThat(new MinHasher(64, 8).signature(shingles))
        .isNotEqualTo(new MinHasher(64, 7).signature(shingles));
    assertThat(MinHasher.isEmpty(new MinHasher(8, 1).signature(new long[0]))).isTrue();
    assertThat(MinHasher.isEmpty(new MinHasher(8, 1).signature(shingles))).isFalse();
  }

  @Test
  void signatureAgreementEstimatesJaccard() {
    // Sets of 1,000 elements sharing `common` of them: Jaccard = common / (2000 - common).
    MinHasher hasher = new MinHasher(1024, 42);
    Random random = new Random(1);
    for (int common : new int[] {0, 333, 600, 818, 1000}) {
      long[] shared = random.longs(common).toArray();
      long[] a =
          LongStream.concat(Arrays.stream(shared), random.longs(1000 - common)).sorted().toArray();
      long[] b =
          LongStream.concat(Arrays.stream(shared), random.longs(1000 - common)).sorted().toArray();
      double jaccard = Shingles.jaccard(a, b);
      assertThat(jaccard).isEqualTo((double) common / (2000 - common), within(1e-12));
      // 1024 positions: standard error <= 0.016; 0.06 is almost four of them.
      assertThat(MinHasher.estimatedJaccard(hasher.signature(a), hasher.signature(b)))
          .isCloseTo(jaccard, within(0.06));
    }
  }

  @Test
  void bandProbabilityFollowsTheFormula() {
    assertThat(LshBands.candidateProbability(0.8, 16, 8))
        .isCloseTo(1 - Math.pow(1 - Math.pow(0.8, 8), 16), within(1e-12));
    assertThat(LshBands.candidateProbability(0.8, 16, 8)).isCloseTo(0.947, within(0.001));
    assertThat(LshBands.candidateProbability(0.0, 16, 8)).isZero();
    assertThat(LshBands.candidateProbability(1.0, 16, 8)).isEqualTo(1.0);
    assertThat(LshBands.threshold(16, 8)).isCloseTo(0.7071, within(1e-4));
    assertThat(LshBands.threshold(10, 10)).isCloseTo(0.7943, within(1e-4));
  }

  @Test
  void bandKeysMatchExactlyWhereSlicesMatch() {
    LshBands lsh = new LshBands(4, 2);
    long[] a = {1, 2, 3, 4, 5, 6, 7, 8};
    long[] b = {1, 2, 9, 4, 5, 6, 7, 9};
    long[] ka = lsh.keys(a);
    long[] kb = lsh.keys(b);
    assertThat(ka[0]).isEqualTo(kb[0]);
    assertThat(ka[1]).isNotEqualTo(kb[1]);
    assertThat(ka[2]).isEqualTo(kb[2]);
    assertThat(ka[3]).isNotEqualTo(kb[3]);
    // Equal slices in different bands give different keys.
    long[] same = lsh.keys(new long[] {1, 1, 1, 1, 1, 1, 1, 1});
    assertThat(Arrays.stream(same).distinct().count()).isEqualTo(4);
    assertThatThrownBy(() -> lsh.keys(new long[7]))
        .hasMessageContaining("expected bands × rows = 4 × 2 = 8");
  }

  @Test
  void candidateRateOfPairsMatchesTheCurve() {
    // Pairs with Jaccard 0.6: P(candidate) at the default 24 × 5 is 0.86; over 400 pairs the
    // observed rate is close.
    DedupConfig config = DedupConfig.defaults();
    MinHasher hasher = config.minHasher();
    LshBands lsh = config.lshBands();
    Random random = new Random(3);
    int candidates = 0;
    int pairs = 400;
    for (int p = 0; p < pairs; p++) {
      long[] shared = random.longs(150).toArray();
      long[] a = LongStream.concat(Arrays.stream(shared), random.longs(50)).sorted().toArray();
      long[] b = LongStream.concat(Arrays.stream(shared), random.longs(50)).sorted().toArray();
      long[] ka = lsh.keys(hasher.signature(a));
      long[] kb = lsh.keys(hasher.signature(b));
      for (int band = 0; band < ka.length; band++) {
        if (ka[band] == kb[band]) {
          candidates++;
          break;
        }
      }
    }
    double expected = LshBands.candidateProbability(0.6, config.bands(), config.rows());
    assertThat((double) candidates / pairs).isCloseTo(expected, within(0.1));
  }

  @Test
  void defaultsAreValidAndPutTheCurveBelowTheThreshold() {
    DedupConfig config = DedupConfig.defaults();
    assertThat(config.problems()).isEmpty();
    assertThat(config.bands() * config.rows()).isEqualTo(config.numPermutations());
    assertThat(config.lshThreshold()).isLessThan(config.jaccardThreshold());
    assertThat(
            LshBands.candidateProbability(config.jaccardThreshold(), config.bands(), config.rows()))
        .isGreaterThan(0.9999);
  }

  @Test
  void configProblemsNameOptionAndExpectation() {
    DedupConfig bad = new DedupConfig(0, 100, 16, 8, 1.5, 1, 1);
    assertThat(bad.problems())
        .containsExactly(
            "shingle_size: got 0, expected an integer >= 1",
            "bands × rows: got 16 × 8 = 128, expected num_permutations = 100",
            "jaccard_threshold: got 1.5, expected a number in (0, 1]",
            "max_bucket_size: got 1, expected an integer >= 2");
    assertThatThrownBy(bad::requireValid)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("invalid dedup config: shingle_size");
    assertThat(new DedupConfig(5, 0, 0, 8, 0.8, 1, 10).problems())
        .contains(
            "num_permutations: got 0, expected an integer >= 1",
            "bands: got 0, expected an integer >= 1");
    assertThat(new DedupConfig(5, 128, 16, 8, Double.NaN, 1, 10).problems()).hasSize(1);
  }
}
