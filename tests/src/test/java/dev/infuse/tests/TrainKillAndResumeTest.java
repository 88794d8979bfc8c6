package dev.infuse.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.jobs.io.Warehouse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code bin/infuse train} killed with SIGKILL after its first checkpoint, then run again: it
 * resumes from the last complete checkpoint and finishes at the configured step count, and every
 * step is in train_metrics once.
 */
@Tag("production")
class TrainKillAndResumeTest {
  private static final int STEPS = 40;
  private final SparkSession spark = SparkTestSession.get();

  @Test
  void aKilledTrainingResumesFromItsCheckpointAndFinishesAtTheSameStep() throws Exception {
    String warehouse = SparkTestSession.tempDir("train-kill").toString();
    assertThat(
            SparkTestSession.cli(
                    "ingest",
                    "--format",
                    "quality",
                    "--input",
                    SparkTestSession.repoRoot()
                        .resolve("samples/quality/quality_dev_sample.jsonl")
                        .toString(),
                    "--warehouse",
                    warehouse)
                .code())
        .isZero();
    List<String> args =
        List.of(
            "train",
            "--warehouse",
            warehouse,
            "--model-dir",
            "models/k",
            "--steps",
            String.valueOf(STEPS),
            "--device",
            "cpu",
            "--set",
            "train.sources=[documents]",
            "--set",
            "train.layers=1",
            "--set",
            "train.d_model=32",
            "--set",
            "train.heads=2",
            "--set",
            "train.sequence_length=32",
            "--set",
            "train.checkpoint_every=5",
            "--set",
            "train.warmup_steps=2");

    List<String> command =
        new ArrayList<>(List.of(SparkTestSession.repoRoot().resolve("bin/infuse").toString()));
    command.addAll(args);
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD);
    builder.environment().put("INFUSE_JAVA_OPTS", "-Xmx1g -Dai.djl.pytorch.num_threads=1");
    Path checkpoints = Path.of(warehouse, "models", "k.checkpoints");
    Process first = builder.start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
    while (completeCheckpoints(checkpoints).isEmpty()
        && first.isAlive()
        && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    assertThat(first.isAlive())
        .as("the first run must still be training when it is killed")
        .isTrue();
    first.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    List<Integer> saved = completeCheckpoints(checkpoints);
    assertThat(saved).isNotEmpty();
    assertThat(saved.get(saved.size() - 1)).isLessThan(STEPS);

    CliResult resumed = SparkTestSession.cli(args.toArray(String[]::new));
    assertThat(resumed.code()).as(resumed.toString()).isZero();
    Matcher from =
        Pattern.compile("resumed from step (\\d+), finished at step (\\d+)").matcher(resumed.out());
    assertThat(from.find()).as(resumed.out()).isTrue();
    int resumedFrom = Integer.parseInt(from.group(1));
    assertThat(resumedFrom).isGreaterThanOrEqualTo(saved.get(saved.size() - 1)).isLessThan(STEPS);
    assertThat(Integer.parseInt(from.group(2))).isEqualTo(STEPS);
    assertThat(Files.readString(Path.of(warehouse, "models", "k", "train_info.json")))
        .contains("\"final_step\" : " + STEPS);

    Warehouse w = new Warehouse(spark, warehouse);
    List<Row> steps = w.read("train_metrics").orderBy("step").collectAsList();
    String resumedRun = steps.get(steps.size() - 1).getAs("run_id");
    // The resumed run logs exactly the steps after its checkpoint; the killed one only steps it had
    // saved.
    assertThat(
            steps.stream()
                .filter(r -> r.getAs("run_id").equals(resumedRun))
                .map(r -> r.<Integer>getAs("step")))
        .containsExactlyElementsOf(
            java.util.stream.IntStream.rangeClosed(resumedFrom + 1, STEPS).boxed().toList());
    assertThat(
            steps.stream()
                .filter(r -> !r.getAs("run_id").equals(resumedRun))
                .map(r -> r.<Integer>getAs("step")))
        .allSatisfy(step -> assertThat(step).isLessThanOrEqualTo(resumedFrom));
    assertThat(steps.stream().map(r -> r.<Integer>getAs("step")).distinct().count())
        .isEqualTo(steps.size());
    System.out.printf(
        "train kill-and-resume: killed after checkpoints %s, resumed from step %d, finished at %d%n",
        saved, resumedFrom, STEPS);
  }

  /** Steps of the checkpoints that carry their COMPLETE marker. */
  private static List<Integer> completeCheckpoints(Path root) throws Exception {
    if (!Files.isDirectory(root)) {
      return List.of();
    }
    try (Stream<Path> dirs = Files.list(root)) {
      return dirs.filter(
              d ->
                  d.getFileName().toString().startsWith("step-")
                      && Files.exists(d.resolve("COMPLETE")))
          .map(d -> Integer.parseInt(d.getFileName().toString().substring(5)))
          .sorted()
          .toList();
    }
  }
}
