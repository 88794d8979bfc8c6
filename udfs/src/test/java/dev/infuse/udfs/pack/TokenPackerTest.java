package dev.infuse.udfs.pack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.infuse.udfs.lm.train.PackedSequence;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class TokenPackerTest {
  private static final int EOS = 2;
  private static final int PAD = 0;

  @Test
  void packsEveryTokenOnceWithOneSeparatorPerTextAndPadsOnlyTheLastSequence() {
    List<TokenizedText> texts =
        List.of(text("a", 10, 11, 12), text("b", 20, 21, 22, 23, 24, 25, 26), text("c", 30));
    List<PackedSequence> packed = new TokenPacker(5, EOS, PAD).pack(texts);

    // 3 + 7 + 1 tokens and 3 separators = 14 targets: three sequences of 5, the last with one pad.
    assertThat(packed).hasSize(3);
    assertThat(packed.get(0).inputIds()).containsExactly(10, 11, 12, EOS, 20);
    assertThat(packed.get(0).documentLengths()).containsExactly(4, 1);
    assertThat(packed.get(1).inputIds()).containsExactly(21, 22, 23, 24, 25);
    assertThat(packed.get(1).documentLengths()).containsExactly(5);
    assertThat(packed.get(2).inputIds()).containsExactly(26, EOS, 30, EOS, PAD);
    assertThat(packed.get(2).documentLengths()).containsExactly(2, 2, 1);
    assertThat(packed.get(2).lossMask()).containsExactly(1, 1, 1, 1, 0);

    int targets = packed.stream().mapToInt(s -> IntStream.of(s.lossMask()).sum()).sum();
    assertThat(targets).isEqualTo(3 + 7 + 1 + texts.size());
    for (PackedSequence s : packed) {
      assertThat(IntStream.of(s.documentLengths()).sum()).isEqualTo(s.inputIds().length);
    }
  }

  @Test
  void aLossMaskKeepsQuestionTokensAsContextButAlwaysTrainsTheSeparator() {
    TokenizedText qa =
        new TokenizedText("synthetic_qa", "q1", new int[] {5, 6, 7, 8}, new int[] {0, 0, 1, 1});
    PackedSequence only = new TokenPacker(8, EOS, PAD).pack(List.of(qa)).get(0);
    assertThat(only.inputIds()).startsWith(5, 6, 7, 8, EOS);
    assertThat(only.lossMask()).containsExactly(0, 0, 1, 1, 1, 0, 0, 0);
  }

  @Test
  void exactFitLeavesNoPaddingSequence() {
    List<PackedSequence> packed = new TokenPacker(4, EOS, PAD).pack(List.of(text("a", 1, 1, 1)));
    assertThat(packed).hasSize(1);
    assertThat(Arrays.stream(packed.get(0).inputIds()).boxed().toList())
        .containsExactly(1, 1, 1, EOS);
  }

  @Test
  void withoutPackingEachTextStartsItsOwnPaddedSequence() {
    List<PackedSequence> each =
        new TokenPacker(4, EOS, PAD).padEach(List.of(text("a", 1), text("b", 2, 3, 4, 5)));
    assertThat(each).hasSize(3);
    assertThat(each.get(0).inputIds()).containsExactly(1, EOS, PAD, PAD);
    assertThat(each.get(0).documentLengths()).containsExactly(2, 2);
    assertThat(each.get(1).inputIds()).containsExactly(2, 3, 4, 5);
    assertThat(each.get(2).inputIds()).containsExactly(EOS, PAD, PAD, PAD);
    assertThat(each.stream().mapToInt(s -> IntStream.of(s.lossMask()).sum()).sum())
        .isEqualTo(1 + 4 + 2);
  }

  @Test
  void rejectsAMaskOfTheWrongLength() {
    assertThatThrownBy(
            () -> new TokenizedText("synthetic_qa", "q9", new int[] {1, 2}, new int[] {1}))
        .hasMessageContaining("synthetic_qa q9")
        .hasMessageContaining("expected one per token (2)");
  }

  private static TokenizedText text(String id, int... ids) {
    return new TokenizedText("documents", id, ids, null);
  }
}
