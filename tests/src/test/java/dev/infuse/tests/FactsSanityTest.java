package dev.infuse.tests;

import static org.apache.spark.sql.functions.col;
import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.jobs.facts.FactsExperiment;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.udfs.facts.FactsCorpus;
import java.nio.file.Path;
import java.util.Locale;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;

/**
 * The facts experiment in miniature (docs/EXPERIMENTS.md): one mixture (QA only), one token target,
 * a corpus of {@value #PEOPLE} people on seed {@value #SEED}. It asserts only the sanity property
 * the issue asks for: the model trained on the trained people's QA scores above chance on those
 * people's facts, with the lower bound of the 95% bootstrap interval above 0.25. The seed and the
 * sizes were fixed before the result was seen.
 */
class FactsSanityTest {
  private static final int PEOPLE = 40;
  private static final long SEED = 11;

  @Test
  void aModelTrainedOnTheTrainedPeoplesQaScoresAboveChanceOnTheirFacts() throws Exception {
    Path root = SparkTestSession.tempDir("facts-sanity");
    CliResult corpus =
        SparkTestSession.cli(
            "make-facts",
            "--out",
            root.resolve("corpus").toString(),
            "--people",
            Integer.toString(PEOPLE),
            "--seed",
            Long.toString(SEED));
    assertThat(corpus.code()).as(corpus.toString()).isZero();
    String warehouse = root.resolve("warehouse").toString();
    long started = System.nanoTime();
    CliResult result =
        SparkTestSession.cli(
            "facts-experiment",
            "--config",
            SparkTestSession.repoRoot().resolve("conf/experiments/facts.yaml").toString(),
            "--warehouse",
            warehouse,
            "--mixtures",
            "conf/mixtures/facts-qa-only.yaml",
            "--token-targets",
            "8000",
            "--passes",
            "30",
            "--set",
            "facts.input=" + root.resolve("corpus").resolve(FactsCorpus.FILE_NAME),
            "--set",
            "facts.rag=false",
            "--set",
            "facts.report=false");
    double seconds = (System.nanoTime() - started) / 1e9;
    assertThat(result.code()).as(result.toString()).isZero();
    assertThat(result.out()).contains("== 1/7 ingest").contains("== 7/7 score");

    Row trained =
        new Warehouse(SparkTestSession.get(), warehouse)
            .read("scores")
            .filter(
                col("setting")
                    .equalTo("trained")
                    .and(col("subset").equalTo(FactsCorpus.TRAINED))
                    .and(col("metric").equalTo("accuracy")))
            .head();
    double low = trained.<Double>getAs("ci_low");
    System.out.printf(
        Locale.ROOT,
        "facts sanity: trained people, QA only: accuracy %.3f [%.3f, %.3f] n=%d (chance %.2f),"
            + " %.0f s%n",
        trained.<Double>getAs("value"),
        low,
        trained.<Double>getAs("ci_high"),
        trained.<Long>getAs("n"),
        FactsExperiment.CHANCE,
        seconds);
    assertThat(trained.<Long>getAs("n")).isEqualTo(PEOPLE / 2 * 6L);
    assertThat(low).as(result.out()).isGreaterThan(FactsExperiment.CHANCE);
  }
}
