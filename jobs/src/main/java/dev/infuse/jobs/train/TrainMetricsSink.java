package dev.infuse.jobs.train;

import dev.infuse.jobs.contract.Contract;
import dev.infuse.jobs.contract.Contracts;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.udfs.lm.train.StepMetrics;
import dev.infuse.udfs.lm.train.TrainingListener;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;

/**
 * Collects step metrics and writes them to {@code train_metrics} at every checkpoint and at the
 * end: one Delta commit per checkpoint rather than per step, and a killed run keeps every step up
 * to its last checkpoint, the same steps its model state was saved at.
 */
final class TrainMetricsSink implements TrainingListener {
  private final SparkSession spark;
  private final Warehouse warehouse;
  private final String runId;
  private final String modelDir;
  private final String device;
  private final PrintWriter out;
  private final int printEvery;
  private final List<Row> pending = new ArrayList<>();
  private StepMetrics last;
  private long written;

  TrainMetricsSink(
      SparkSession spark,
      Warehouse warehouse,
      String runId,
      String modelDir,
      String device,
      PrintWriter out,
      int printEvery) {
    this.spark = spark;
    this.warehouse = warehouse;
    this.runId = runId;
    this.modelDir = modelDir;
    this.device = device;
    this.out = out;
    this.printEvery = Math.max(1, printEvery);
  }

  @Override
  public void onStep(StepMetrics m) {
    pending.add(
        RowFactory.create(
            runId,
            m.step(),
            m.loss(),
            m.learningRate(),
            m.gradNorm(),
            m.tokens(),
            m.tokensPerSecond(),
            m.wallSeconds(),
            modelDir,
            device));
    last = m;
    if (m.step() % printEvery == 0) {
      out.printf(
          Locale.ROOT,
          "  step %d  loss %.4f  lr %.2e  grad_norm %.3f  %.0f tokens/s%n",
          m.step(),
          m.loss(),
          m.learningRate(),
          m.gradNorm(),
          m.tokensPerSecond());
      out.flush();
    }
  }

  @Override
  public void onCheckpoint(int step, Path dir) {
    flush();
  }

  /** Writes what is pending. */
  void flush() {
    if (pending.isEmpty()) {
      return;
    }
    Contract contract = Contracts.load("train_metrics");
    warehouse.append(contract, spark.createDataFrame(List.copyOf(pending), contract.schema()));
    written += pending.size();
    pending.clear();
  }

  /** The latest step's metrics, or null before the first step of this run. */
  StepMetrics last() {
    return last;
  }

  long written() {
    return written;
  }
}
