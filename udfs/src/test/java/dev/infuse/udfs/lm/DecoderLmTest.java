package dev.infuse.udfs.lm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class DecoderLmTest {
  private static final float TOLERANCE = 1e-4f;
  private static DecoderLm model;

  @BeforeAll
  static void createModel() {
    model = TinyLms.create(7);
  }

  @AfterAll
  static void closeModel() {
    model.close();
  }

  @Test
  void sameSeedGivesSameWeightsAndOtherSeedDoesNot() {
    try (DecoderLm twin = TinyLms.create(7);
        DecoderLm other = TinyLms.create(8);
        NDManager manager = NDManager.newBaseManager("PyTorch")) {
      long[] tokens = {2023, 2003, 1037, 3231};
      NDArray mine = alone(model, manager, tokens);
      assertThat(mine.toFloatArray()).containsExactly(alone(twin, manager, tokens).toFloatArray());
      assertThat(mine.sub(alone(other, manager, tokens)).abs().max().getFloat())
          .isGreaterThan(1e-3f);
    }
  }

  @Test
  void leftPaddedRowGivesTheSameLogitsAsTheRowAlone() {
    try (NDManager manager = NDManager.newBaseManager("PyTorch")) {
      long[] longRow = {2023, 2003, 1037, 2936, 6251};
      long[] shortRow = {7592, 2088, 999};
      NDArray tokens = manager.create(new long[][] {longRow, {0, 0, 7592, 2088, 999}});
      NDArray positions = manager.create(new long[][] {{0, 1, 2, 3, 4}, {0, 0, 0, 1, 2}});
      NDArray keyMask = manager.create(new long[][] {{1, 1, 1, 1, 1}, {0, 0, 1, 1, 1}});
      NDArray batch = model.forward(tokens, positions, keyMask, null);

      assertThat(batch.getShape()).isEqualTo(new Shape(2, 5, 30522));
      assertClose(batch.get("1, 2:"), alone(model, manager, shortRow).get(0));
      assertClose(batch.get("0"), alone(model, manager, longRow).get(0));
    }
  }

  @Test
  void kvCacheIncrementalLogitsEqualFullSequenceLogits() {
    try (NDManager manager = NDManager.newBaseManager("PyTorch")) {
      long[] tokens = {2023, 2003, 1037, 2936, 6251, 1012};
      NDArray full = alone(model, manager, tokens).get(0);
      try (CausalLm.KvCache cache = model.newCache(manager, 1)) {
        int[][] chunks = {{0, 3}, {3, 4}, {4, 6}};
        for (int[] chunk : chunks) {
          NDArray logits =
              model.forward(
                  manager.create(new long[][] {slice(tokens, chunk[0], chunk[1])}),
                  manager
                      .arange(chunk[0], chunk[1])
                      .toType(ai.djl.ndarray.types.DataType.INT64, false)
                      .reshape(1, -1),
                  manager.ones(new Shape(1, chunk[1]), ai.djl.ndarray.types.DataType.INT64),
                  cache);
          assertClose(logits.get(0), full.get(new NDIndex(chunk[0] + ":" + chunk[1])));
        }
        assertThat(cache.length()).isEqualTo(6);
      }
    }
  }

  @Test
  void keepRowsContinuesOnlyTheKeptRowsInTheGivenOrder() {
    try (NDManager manager = NDManager.newBaseManager("PyTorch")) {
      long[][] rows = {{2023, 2003, 1037}, {7592, 2088, 999}, {2116, 2024, 2017}};
      try (CausalLm.KvCache cache = model.newCache(manager, 3)) {
        model.forward(
            manager.create(rows), positions(manager, 3, 0, 3), ones(manager, 3, 3), cache);
        cache.keepRows(new long[] {2, 0});
        NDArray next =
            model.forward(
                manager.create(new long[][] {{1012}, {1029}}),
                positions(manager, 2, 3, 4),
                ones(manager, 2, 4),
                cache);
        assertClose(
            next.get("0, 0"),
            alone(model, manager, new long[] {2116, 2024, 2017, 1012}).get("0, 3"));
        assertClose(
            next.get("1, 0"),
            alone(model, manager, new long[] {2023, 2003, 1037, 1029}).get("0, 3"));
      }
    }
  }

  @Test
  void trainingMaskKeepsPackedDocumentsApart() {
    try (NDManager manager = NDManager.newBaseManager("PyTorch")) {
      // Two documents of 3 and 2 tokens packed into one row; positions restart at the second.
      NDArray positions = manager.create(new long[][] {{0, 1, 2, 0, 1}});
      boolean[] mask = new boolean[25];
      int[] documentOf = {0, 0, 0, 1, 1};
      for (int i = 0; i < 5; i++) {
        for (int j = 0; j <= i; j++) {
          mask[i * 5 + j] = documentOf[i] == documentOf[j];
        }
      }
      NDArray attention = manager.create(mask, new Shape(1, 5, 5));
      NDArray original =
          model.forwardTraining(
              manager.create(new long[][] {{2023, 2003, 1037, 7592, 2088}}), positions, attention);
      NDArray perturbed =
          model.forwardTraining(
              manager.create(new long[][] {{4248, 2829, 4419, 7592, 2088}}), positions, attention);

      assertClose(perturbed.get("0, 3:"), original.get("0, 3:"));
      assertThat(perturbed.get("0, :3").sub(original.get("0, :3")).abs().max().getFloat())
          .isGreaterThan(1e-3f);
      // The second document alone, as inference sees it, matches too.
      assertClose(original.get("0, 3:"), alone(model, manager, new long[] {7592, 2088}).get(0));
    }
  }

  @Test
  void badInputsNameTheFieldAndTheExpectedValue() {
    LmConfig bad = new LmConfig(LmConfig.INFUSE_DECODER, 30522, 2, 30, 4, 32, 4, 102, 0);
    assertThatThrownBy(() -> DecoderLm.create(bad, TinyLms.tokenizerJson(), Device.cpu(), 1))
        .hasMessageContaining("heads: got 4, expected a divisor of d_model 30");
    try (NDManager manager = NDManager.newBaseManager("PyTorch")) {
      assertThatThrownBy(
              () ->
                  model.forward(
                      manager.create(new long[][] {{1, 2}}),
                      positions(manager, 1, 31, 33),
                      ones(manager, 1, 2),
                      null))
          .hasMessageContaining("positions: got 32, expected below context_length 32");
      assertThatThrownBy(
              () ->
                  model.forward(
                      manager.create(new long[][] {{1, 2}}),
                      positions(manager, 1, 0, 2),
                      ones(manager, 1, 3),
                      null))
          .hasMessageContaining("keyMask: got shape (1, 3), expected (1, 2)");
    }
  }

  static NDArray alone(CausalLm lm, NDManager manager, long[] tokens) {
    return lm.forward(
        manager.create(new long[][] {tokens}),
        positions(manager, 1, 0, tokens.length),
        ones(manager, 1, tokens.length),
        null);
  }

  private static NDArray positions(NDManager manager, int rows, int from, int to) {
    long[][] positions = new long[rows][to - from];
    for (long[] row : positions) {
      for (int i = 0; i < row.length; i++) {
        row[i] = from + i;
      }
    }
    return manager.create(positions);
  }

  private static NDArray ones(NDManager manager, int rows, int columns) {
    return manager.ones(new Shape(rows, columns), ai.djl.ndarray.types.DataType.INT64);
  }

  private static long[] slice(long[] values, int from, int to) {
    return java.util.Arrays.copyOfRange(values, from, to);
  }

  static void assertClose(NDArray actual, NDArray expected) {
    assertThat(actual.getShape()).isEqualTo(expected.getShape());
    assertThat(actual.sub(expected).abs().max().getFloat()).isLessThan(TOLERANCE);
  }
}
