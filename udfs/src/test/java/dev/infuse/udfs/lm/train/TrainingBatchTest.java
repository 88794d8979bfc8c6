package dev.infuse.udfs.lm.train;

import static org.assertj.core.api.Assertions.assertThat;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import dev.infuse.udfs.lm.DecoderLm;
import dev.infuse.udfs.lm.TinyLms;
import java.util.List;
import org.junit.jupiter.api.Test;

class TrainingBatchTest {
  private static final int PAD = 0;

  @Test
  void documentMaskingKeepsPackedDocumentsApart() {
    // Documents [11 12 13] and [21 22], only 13 and 22 are targets; a shorter second row is padded.
    PackedSequence packed =
        new PackedSequence(
            new int[] {11, 12, 13, 21, 22}, new int[] {3, 2}, new int[] {0, 0, 1, 0, 1});
    TrainingBatch batch = new TrainingBatch(List.of(packed, PackedSequence.of(31, 32)), PAD, true);

    assertThat(batch.length).isEqualTo(5);
    assertThat(batch.tokens).containsExactly(11, 12, 13, 21, 22, 31, 32, PAD, PAD, PAD);
    assertThat(batch.positions).containsExactly(0, 1, 2, 0, 1, 0, 1, 0, 0, 0);
    assertThat(keys(batch, 0, 2)).containsExactly(true, true, true, false, false);
    assertThat(keys(batch, 0, 3)).containsExactly(false, false, false, true, false);
    assertThat(keys(batch, 0, 4)).containsExactly(false, false, false, true, true);
    // Position 1 predicts 13; position 2 would predict 21 across the boundary; position 3 predicts
    // 22.
    assertThat(batch.targetWeights).containsExactly(0, 1, 0, 1, 0, 1, 0, 0, 0, 0);
    assertThat(batch.targets[1]).isEqualTo(13);
    assertThat(batch.targets[3]).isEqualTo(22);
    assertThat(batch.realTokens).isEqualTo(7);
  }

  @Test
  void aPackedBatchGivesTheSecondDocumentTheLogitsItHasAlone() {
    try (DecoderLm model = TinyLms.create(3);
        NDManager manager = NDManager.newBaseManager("PyTorch")) {
      PackedSequence original =
          new PackedSequence(new int[] {2023, 2003, 1037, 7592, 2088}, new int[] {3, 2}, null);
      PackedSequence perturbed =
          new PackedSequence(new int[] {4248, 2829, 4419, 7592, 2088}, new int[] {3, 2}, null);
      NDArray originalLogits =
          logits(model, manager, new TrainingBatch(List.of(original), PAD, true));
      NDArray perturbedLogits =
          logits(model, manager, new TrainingBatch(List.of(perturbed), PAD, true));
      NDArray secondAlone =
          logits(
              model, manager, new TrainingBatch(List.of(PackedSequence.of(7592, 2088)), PAD, true));

      assertThat(
              perturbedLogits.get("0, 3:").sub(originalLogits.get("0, 3:")).abs().max().getFloat())
          .isLessThan(1e-4f);
      assertThat(originalLogits.get("0, 3:").sub(secondAlone.get("0")).abs().max().getFloat())
          .isLessThan(1e-4f);
      // Without the mask the second document does see the first.
      NDArray unmasked = logits(model, manager, new TrainingBatch(List.of(perturbed), PAD, false));
      assertThat(unmasked.get("0, 3:").sub(originalLogits.get("0, 3:")).abs().max().getFloat())
          .isGreaterThan(1e-3f);
    }
  }

  private static NDArray logits(DecoderLm model, NDManager manager, TrainingBatch batch) {
    Shape cells = new Shape(batch.rows, batch.length);
    return model.forwardTraining(
        manager.create(batch.tokens, cells),
        manager.create(batch.positions, cells),
        manager.create(batch.attention, new Shape(batch.rows, batch.length, batch.length)));
  }

  @Test
  void withoutDocumentMaskingARowIsOneStream() {
    PackedSequence packed = new PackedSequence(new int[] {11, 12, 21, 22}, new int[] {2, 2}, null);
    TrainingBatch batch = new TrainingBatch(List.of(packed), PAD, false);

    assertThat(batch.positions).containsExactly(0, 1, 2, 3);
    assertThat(keys(batch, 0, 3)).containsExactly(true, true, true, true);
    assertThat(batch.targetWeights).containsExactly(1, 1, 1, 0);
  }

  @Test
  void dataOrderIsAPermutationPerEpochAndDependsOnlyOnSeedAndStep() {
    DataOrder order = new DataOrder(5, 42);
    int[] epochZero =
        concat(order.batch(1, 2), order.batch(2, 2), new int[] {order.batch(3, 2)[0]});
    assertThat(epochZero).containsExactlyInAnyOrder(0, 1, 2, 3, 4);
    assertThat(new DataOrder(5, 42).batch(7, 2)).containsExactly(order.batch(7, 2));
    assertThat(new DataOrder(5, 43).batch(1, 5)).isNotEqualTo(order.batch(1, 5));
  }

  @Test
  void learningRateWarmsUpLinearlyThenDecaysByCosineToTheMinimum() {
    TrainingConfig config =
        new TrainingConfig(110, 1, 1.0, 0.1, 10, 0, 0.9, 0.95, 1e-8, 1, 0, 0, true);
    assertThat(LearningRateSchedule.at(1, config)).isEqualTo(0.1);
    assertThat(LearningRateSchedule.at(10, config)).isEqualTo(1.0);
    assertThat(LearningRateSchedule.at(60, config))
        .isCloseTo(0.55, org.assertj.core.api.Assertions.within(1e-12));
    assertThat(LearningRateSchedule.at(110, config))
        .isCloseTo(0.1, org.assertj.core.api.Assertions.within(1e-12));
  }

  private static boolean[] keys(TrainingBatch batch, int row, int query) {
    int from = (row * batch.length + query) * batch.length;
    return java.util.Arrays.copyOfRange(batch.attention, from, from + batch.length);
  }

  private static int[] concat(int[]... parts) {
    return java.util.Arrays.stream(parts).flatMapToInt(java.util.Arrays::stream).toArray();
  }
}
