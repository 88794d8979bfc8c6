package dev.infuse.udfs.mix;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class MixtureTest {
  private static final Map<String, Double> DOC_WEIGHTS =
      Map.of(
          "documents",
          0.2,
          "synthetic_docs.rephrase",
          0.4,
          "synthetic_docs.entity",
          0.3,
          "synthetic_docs.focal",
          0.1);

  @Test
  void sharesSplitQaDocumentsAndReplayAndSumToOne() {
    MixtureSpec spec = spec(1_000_000, 0.25, 0.1, DOC_WEIGHTS, 4);
    Map<String, Double> shares = spec.shares();
    assertThat(shares.get("synthetic_qa")).isCloseTo(0.9 * 0.25, within(1e-12));
    assertThat(shares.get("synthetic_docs.rephrase")).isCloseTo(0.9 * 0.75 * 0.4, within(1e-12));
    assertThat(shares.get("replay")).isCloseTo(0.1, within(1e-12));
    assertThat(shares.values().stream().mapToDouble(Double::doubleValue).sum())
        .isCloseTo(1, within(1e-12));
  }

  @Test
  void invalidMixturesNameEveryProblem() {
    Map<String, Double> bad =
        new LinkedHashMap<>(Map.of("documents", 0.5, "synthetic_docs.rephrase", 0.2));
    bad.put("wikipedia", 0.1);
    assertThat(spec(100, 1.5, 0, bad, 0.5).problems())
        .containsExactlyInAnyOrder(
            "qa_fraction: got 1.5, expected a fraction in 0..1",
            "document_weights.wikipedia: unknown source, expected one of documents, synthetic_docs.rephrase,"
                + " synthetic_docs.entity, synthetic_docs.focal",
            "max_epochs: got 0.5, expected >= 1 (1 means no upsampling)");
    assertThat(
            spec(100, 0.5, 0, Map.of("documents", 0.5, "synthetic_docs.entity", 0.2), 1).problems())
        .containsExactly(
            "document_weights: sum to 0.7, expected 1 (they split the document share 1 - qa_fraction = 0.5)");
  }

  @Test
  void anEmptySourceWithAShareIsAnErrorAndATooSmallOneReportsItsShortfall() {
    MixtureSpec spec = spec(10_000, 0.5, 0, Map.of("documents", 1.0), 2);
    assertThatThrownBy(() -> MixturePlanner.plan(spec, Map.of("synthetic_qa", 100_000L)))
        .hasMessageContaining(
            "source documents: empty, but the mixture gives it a share of 0.5000");

    // Without a token target the shares are not applied: every source is taken once, empty ones
    // too.
    Map<String, SourcePlan> natural =
        MixturePlanner.plan(
            spec(0, 0.5, 0, Map.of("documents", 1.0), 2), Map.of("synthetic_qa", 100_000L));
    assertThat(natural.get("synthetic_qa").epochs()).isEqualTo(1.0);
    assertThat(natural.get("documents").epochs()).isZero();

    Map<String, SourcePlan> plan =
        MixturePlanner.plan(spec, Map.of("synthetic_qa", 100_000L, "documents", 1_000L));
    assertThat(plan.get("synthetic_qa").epochs()).isCloseTo(0.05, within(1e-12));
    assertThat(plan.get("documents").epochs()).isEqualTo(2.0);
    assertThat(plan.get("documents").shortfallTokens()).isEqualTo(3_000);
  }

  @Test
  void sampledTokenProportionsMatchTheMixtureWithinTwoPercent() {
    Map<String, List<int[]>> rows = syntheticRows();
    Map<String, Long> available = new HashMap<>();
    rows.forEach((source, list) -> available.put(source, list.stream().mapToLong(r -> r[1]).sum()));
    MixtureSpec spec = spec(600_000, 0.4, 0.1, DOC_WEIGHTS, 3);
    Map<String, SourcePlan> plan = MixturePlanner.plan(spec, available);

    Map<String, Long> taken = sample(new StatelessSampler(7), plan, rows);
    long total = taken.values().stream().mapToLong(Long::longValue).sum();
    assertThat((double) total).isCloseTo(600_000, within(600_000 * 0.02));
    spec.shares()
        .forEach(
            (source, share) ->
                assertThat((double) taken.getOrDefault(source, 0L) / total)
                    .as(source)
                    .isCloseTo(share, within(0.02)));
  }

  @Test
  void theSameSeedGivesTheSameOrderAndAnotherSeedReordersTheSameRowsAtWholeEpochs() {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      ids.add("row-" + i);
    }
    assertThat(order(1, ids)).isEqualTo(order(1, ids));
    assertThat(order(2, ids))
        .isNotEqualTo(order(1, ids))
        .containsExactlyInAnyOrderElementsOf(order(1, ids));
    assertThat(new StatelessSampler(3).repetitions("documents", "row-1", 2.0))
        .containsExactly(0, 1);
  }

  private static List<String> order(long seed, List<String> ids) {
    StatelessSampler sampler = new StatelessSampler(seed);
    return ids.stream()
        .sorted(Comparator.comparingLong(id -> sampler.orderKey("documents", id, 0)))
        .toList();
  }

  /** Rows per source as (row index, tokens), with lengths that differ by source. */
  private static Map<String, List<int[]>> syntheticRows() {
    SplittableRandom random = new SplittableRandom(5);
    Map<String, List<int[]>> rows = new LinkedHashMap<>();
    int[] counts = {4000, 500, 3000, 2000, 1500, 3000};
    int i = 0;
    for (String source : MixtureSpec.SOURCES) {
      List<int[]> list = new ArrayList<>();
      for (int r = 0; r < counts[i]; r++) {
        list.add(new int[] {r, 20 + random.nextInt(200)});
      }
      rows.put(source, list);
      i++;
    }
    return rows;
  }

  private static Map<String, Long> sample(
      StatelessSampler sampler, Map<String, SourcePlan> plan, Map<String, List<int[]>> rows) {
    Map<String, Long> taken = new HashMap<>();
    rows.forEach(
        (source, list) -> {
          for (int[] row : list) {
            int times =
                sampler
                    .repetitions(source, source + ":" + row[0], plan.get(source).epochs())
                    .size();
            taken.merge(source, (long) times * row[1], Long::sum);
          }
        });
    return taken;
  }

  private static MixtureSpec spec(
      long total, double qa, double replay, Map<String, Double> weights, double maxEpochs) {
    return new MixtureSpec("test", 1, total, qa, replay, weights, maxEpochs, 0);
  }
}
