package dev.infuse.udfs.lm.train;

import ai.djl.Device;
import dev.infuse.udfs.lm.DecoderLm;
import dev.infuse.udfs.lm.LmConfig;
import dev.infuse.udfs.lm.TinyLms;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Training tokens per second of demo-sized models on this machine's CPU. Prints, never gates; run
 * with {@code -Dinfuse.excludedGroups= -Dgroups=benchmark -Dtest=DemoSizeTrainingBenchmarkTest}.
 */
@Tag("benchmark")
class DemoSizeTrainingBenchmarkTest {
  private static final int STEPS = 30;

  @Test
  void demoSizes() {
    measure(64, 2, 64, 8);
    measure(32, 2, 64, 8);
    measure(64, 2, 32, 8);
    measure(64, 2, 64, 4);
    measure(64, 2, 32, 4);
  }

  private static void measure(int width, int layers, int length, int batch) {
    LmConfig config =
        new LmConfig(
            LmConfig.INFUSE_DECODER, 30522, layers, width, 4, length, 4, TinyLms.EOS, TinyLms.PAD);
    try (DecoderLm model = DecoderLm.create(config, TinyLms.tokenizerJson(), Device.cpu(), 1)) {
      List<PackedSequence> data = packed(model, length);
      List<StepMetrics> steps = new ArrayList<>();
      long started = System.nanoTime();
      Trainer.train(
          model, data, TrainingConfig.defaults(STEPS, batch, 3e-3, 1, 0), null, steps::add);
      double seconds = (System.nanoTime() - started) / 1e9;
      double[] rates =
          steps.stream().skip(3).mapToDouble(StepMetrics::tokensPerSecond).sorted().toArray();
      System.out.printf(
          "d_model %d, layers %d, seq %d, batch %d: %d steps in %.1f s, %.0f tokens/s median,"
              + " %.2f s/step, loss %.2f -> %.2f%n",
          width,
          layers,
          length,
          batch,
          STEPS,
          seconds,
          rates[rates.length / 2],
          seconds / STEPS,
          steps.get(0).loss(),
          steps.get(STEPS - 1).loss());
    }
  }

  /** The corpus sentences, repeated and cut into full rows of {@code length} tokens. */
  private static List<PackedSequence> packed(DecoderLm model, int length) {
    List<Integer> stream = new ArrayList<>();
    for (int repeat = 0; repeat < 20; repeat++) {
      for (PackedSequence row : TinyCorpus.rows(model.tokenizer())) {
        Arrays.stream(row.inputIds()).forEach(stream::add);
      }
    }
    List<PackedSequence> rows = new ArrayList<>();
    for (int from = 0; from + length <= stream.size(); from += length) {
      rows.add(
          PackedSequence.of(
              stream.subList(from, from + length).stream().mapToInt(Integer::intValue).toArray()));
    }
    return rows;
  }
}
