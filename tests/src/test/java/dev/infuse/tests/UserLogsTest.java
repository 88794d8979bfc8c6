package dev.infuse.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.jobs.SparkTestSession;
import org.apache.logging.log4j.LogManager;
import org.junit.jupiter.api.Test;

/**
 * The log file {@code bin/infuse} uses silences only what a user cannot act on: Infuse's own
 * warnings and Spark's real ones (a lost task, a failed stage) still reach the console.
 */
class UserLogsTest {
  @Test
  void realWarningsReachTheConsoleAndKnownNoiseDoesNot() {
    // The shared session quiets the root logger to ERROR; the capture must still see the user's
    // levels, or the demo's no-warnings check would pass over every WARN.
    SparkTestSession.get();
    try (WarningCapture capture = WarningCapture.begin()) {
      LogManager.getLogger("dev.infuse.jobs.llm.LlmCallStage").warn("infuse warning");
      LogManager.getLogger("org.apache.spark.scheduler.TaskSetManager").warn("lost task 0.0");
      LogManager.getLogger("org.apache.spark.scheduler.DAGScheduler").error("stage failed");
      LogManager.getLogger("org.apache.spark.SparkContext").info("info is not shown");
      // Noise the file silences: DJL's CUDA probe on a CPU host, Parquet's chatter.
      LogManager.getLogger("ai.djl.util.cuda.CudaUtils").warn("no CUDA");
      LogManager.getLogger("org.apache.parquet.hadoop.ParquetOutputFormat").warn("parquet noise");
      assertThat(capture.lines())
          .containsExactly(
              "WARN dev.infuse.jobs.llm.LlmCallStage: infuse warning",
              "WARN org.apache.spark.scheduler.TaskSetManager: lost task 0.0",
              "ERROR org.apache.spark.scheduler.DAGScheduler: stage failed");
    }
  }
}
