package dev.infuse.tests;

import static org.apache.spark.sql.functions.col;
import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.jobs.facts.FactsExperiment;
import dev.infuse.jobs.io.Warehouse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The whole synthetic-facts experiment (docs/EXPERIMENTS.md) from its one command on the shipped
 * sample, {@code conf/experiments/facts.yaml} as it is: three mixtures at two token targets, six
 * models, RAG, scores per subset, paired comparisons, a scaling fit per mixture and subset, the
 * report. Prints the command's output (the table) to the surefire report; asserts only that every
 * number the closing note needs was written. An experiment, not a test of an outcome: excluded from
 * the build. Run:
 *
 * <pre>
 * mvn -B -o -pl tests -am verify -Dinfuse.excludedGroups= -Dgroups=experiment \
 *     -Dtest=FactsExperimentTest -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 */
@Tag("experiment")
class FactsExperimentTest {
  @Test
  void threeMixturesAtTwoTargetsOnTrainedAndHeldOutPeople() throws Exception {
    // -Dinfuse.facts.warehouse=DIR reruns in a warehouse an earlier (stopped) run left: every
    // finished
    // step is free on a rerun (finished builds are kept, training resumes from its checkpoints).
    String given = System.getProperty("infuse.facts.warehouse", "");
    String warehouse =
        given.isBlank()
            ? SparkTestSession.tempDir("facts-experiment").resolve("warehouse").toString()
            : given;
    long started = System.nanoTime();
    CliResult result =
        SparkTestSession.cli(
            "facts-experiment",
            "--config",
            SparkTestSession.repoRoot().resolve("conf/experiments/facts.yaml").toString(),
            "--warehouse",
            warehouse);
    double seconds = (System.nanoTime() - started) / 1e9;
    System.out.println(result.out());
    System.out.printf(Locale.ROOT, "facts experiment: %.0f s (%.1f min)%n", seconds, seconds / 60);
    assertThat(result.code()).as(result.toString()).isZero();
    assertThat(result.out()).contains("== 33/33 report").doesNotContain("== 34/");

    Warehouse w = new Warehouse(SparkTestSession.get(), warehouse);
    List<Row> scores =
        w.read("scores")
            .filter(
                col("metric")
                    .equalTo("accuracy")
                    .and(col("subset").isin(FactsExperiment.SUBSETS.toArray())))
            .collectAsList();
    // Seven runs (rag and six models) on both subsets, 100 people x 6 questions each.
    assertThat(scores).hasSize(14).allSatisfy(r -> assertThat(r.<Long>getAs("n")).isEqualTo(600));
    assertThat(
            w.read("score_comparisons")
                .filter(col("subset").equalTo("held_out").and(col("metric").equalTo("accuracy")))
                .count())
        .isEqualTo(6);
    List<Row> fits = w.read("scaling_fits").collectAsList();
    assertThat(fits).hasSize(6);
    assertThat(
            fits.stream().map(r -> r.<String>getAs("label") + "/" + r.getAs("subset")).distinct())
        .hasSize(6);
    try (var reports = Files.walk(Path.of(warehouse, "reports"))) {
      assertThat(reports.filter(p -> p.endsWith("report.html")).count()).isEqualTo(1);
    }
  }
}
