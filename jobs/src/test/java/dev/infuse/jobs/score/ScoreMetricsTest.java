package dev.infuse.jobs.score;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.jobs.contract.Contract;
import dev.infuse.jobs.contract.Contracts;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.jobs.spark.SparkRows;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/**
 * The papers' metrics on hand-made predictions: accuracy (correct / all), accuracy_attempted
 * (correct / parsed, EntiGraph's {@code _attempts_stats}) and parse_rate, including runs where
 * nothing parsed and where nothing parsed was right; and the {@code entigraph_test} subset over a
 * hand-made set of QuALITY articles.
 */
class ScoreMetricsTest {
  private static final SparkSession SPARK = SparkTestSession.get();
  private static final List<String> OPTIONS = List.of("red", "green", "blue", "yellow");

  @Test
  void bothAccuraciesAndTheParseRatePerSubsetIncludingEntigraphTest() {
    Warehouse w = new Warehouse(SPARK, SparkTestSession.tempDir("score-metrics").toString());
    // Five articles once deduplicated: d1 and d2 are the same article (title and author), so
    // int(0.2 * 5) = 1 article, Attic, is EntiGraph's validation and d3..d6 are its test. d7 is in
    // the unlabelled test split, which EntiGraph does not load: sorted first, it would otherwise
    // push Attic into the test 80%.
    write(
        w,
        "documents",
        List.of(
            document("quality:d1", "Attic", "Ann Lee"),
            document("quality:d2", "Attic", "Ann Lee"),
            document("quality:d3", "Bay", "Bo Ray"),
            document("quality:d4", "Cove", "Cy Dunn"),
            document("quality:d5", "Dune", "Di Fox"),
            document("quality:d6", "Elm", "Ed Gray"),
            document("quality:d7", "Aaa", "Fa Hill")));
    List<Row> questions = new ArrayList<>();
    for (int i = 1; i <= 6; i++) {
      questions.add(question("quality:q" + i, "quality:d" + i, "dev", "A", 0));
    }
    questions.add(question("quality:q7", "quality:d7", "test", null, null));
    write(w, "questions", questions);

    // ans-gen: q1 A (right), q2 B (wrong), q3 unparsed, q4 A (right), q5 unparsed, q6 C (wrong).
    String[] gen = {"A", "B", null, "A", null, "C"};
    List<Row> predictions = new ArrayList<>();
    for (int i = 1; i <= 6; i++) {
      predictions.add(prediction("ans-gen", "quality:q" + i, gen[i - 1]));
      // ans-none: nothing parsed. ans-wrong: everything parsed, nothing right.
      predictions.add(prediction("ans-none", "quality:q" + i, null));
      predictions.add(prediction("ans-wrong", "quality:q" + i, "D"));
    }
    write(w, "predictions", predictions);

    CliResult result = SparkTestSession.cli("score", "--warehouse", w.root(), "--resamples", "200");
    assertThat(result.code()).as(result.toString()).isZero();
    assertThat(result.out())
        .contains("entigraph_test: 4 of 5 QuALITY train+dev article(s)")
        .contains("not the full 265");

    assertScore(w, "ans-gen", "all", "accuracy", 2 / 6.0, 6);
    assertScore(w, "ans-gen", "all", "parse_rate", 4 / 6.0, 6);
    assertScore(w, "ans-gen", "all", "accuracy_attempted", 2 / 4.0, 4);
    // entigraph_test: q3..q6, of which q4 and q6 parsed and q4 is right.
    assertScore(w, "ans-gen", "entigraph_test", "accuracy", 1 / 4.0, 4);
    assertScore(w, "ans-gen", "entigraph_test", "parse_rate", 2 / 4.0, 4);
    assertScore(w, "ans-gen", "entigraph_test", "accuracy_attempted", 1 / 2.0, 2);

    // Nothing parsed: accuracy and parse rate are 0, and correct / parsed has no value (EntiGraph's
    // NaN), so it has no row rather than a made-up number.
    assertScore(w, "ans-none", "all", "accuracy", 0.0, 6);
    assertScore(w, "ans-none", "all", "parse_rate", 0.0, 6);
    assertThat(
            w.read("scores")
                .filter("run_id = 'ans-none' AND metric = 'accuracy_attempted'")
                .count())
        .isZero();
    // Parsed but never right: 0 / 6 is 0 (EntiGraph's _div_nan_if_zero would say NaN).
    assertScore(w, "ans-wrong", "all", "accuracy_attempted", 0.0, 6);
    assertScore(w, "ans-wrong", "all", "parse_rate", 1.0, 6);

    // The intervals are bootstrapped like every other metric's.
    Row attempted = score(w, "ans-gen", "all", "accuracy_attempted");
    assertThat(attempted.<Double>getAs("ci_low")).isLessThan(0.5);
    assertThat(attempted.<Double>getAs("ci_high")).isGreaterThan(0.5);

    Row counts =
        w.read("runs").filter("job = 'score' AND status = 'succeeded'").select("counts").head();
    Map<String, Long> c = counts.getJavaMap(0);
    assertThat(c).containsEntry("entigraph_split.articles", 5L);
    assertThat(c).containsEntry("entigraph_split.test_articles", 4L);
    // Only the test articles' questions carry the subset.
    assertThat(
            w.read("scores")
                .filter("subset = 'entigraph_test' AND metric = 'accuracy'")
                .select("n")
                .distinct()
                .collectAsList())
        .extracting(r -> r.getLong(0))
        .containsExactly(4L);
  }

  private static void assertScore(
      Warehouse w, String run, String subset, String metric, double value, long n) {
    Row r = score(w, run, subset, metric);
    assertThat(r.<Double>getAs("value"))
        .as(run + " " + subset + " " + metric)
        .isCloseTo(value, within(1e-12));
    assertThat(r.<Long>getAs("n")).as(run + " " + subset + " " + metric + " n").isEqualTo(n);
  }

  private static Row score(Warehouse w, String run, String subset, String metric) {
    List<Row> rows =
        w.read("scores")
            .filter(
                "run_id = '"
                    + run
                    + "' AND subset = '"
                    + subset
                    + "' AND metric = '"
                    + metric
                    + "'")
            .collectAsList();
    assertThat(rows).as(run + " " + subset + " " + metric).hasSize(1);
    return rows.get(0);
  }

  private static Row document(String id, String title, String author) {
    return RowFactory.create(
        id,
        "quality",
        title,
        "The text of " + title + ".",
        "QuALITY.v1.0.1.htmlstripped.dev",
        null,
        SparkRows.map(Map.of("author", author)));
  }

  private static Row question(String id, String docId, String split, String gold, Integer index) {
    return RowFactory.create(
        id,
        docId,
        "quality",
        split,
        "Question " + id + "?",
        SparkRows.seq(OPTIONS),
        gold,
        index,
        "mcq",
        SparkRows.seq(List.of()),
        SparkRows.map(Map.<String, String>of()));
  }

  /** A generate prediction; {@code parsed} null for an answer that did not parse (then wrong). */
  private static Row prediction(String runId, String questionId, String parsed) {
    return RowFactory.create(
        runId,
        questionId,
        "quality",
        "closed_book",
        "openai",
        "m",
        "generate",
        "quality-mcq@1",
        parsed == null ? "I cannot tell." : "Answer: " + parsed,
        parsed,
        "A".equals(parsed),
        null,
        null,
        null,
        "call-" + runId + "-" + questionId,
        null,
        null, // unique, seen, count tokenizer, generator: a closed-book run has none
        null,
        null,
        null,
        "hash-" + runId,
        null); // rag_recipe
  }

  private static void write(Warehouse w, String table, List<Row> rows) {
    Contract contract = Contracts.load(table);
    w.upsert(contract, SPARK.createDataFrame(rows, contract.schema()));
  }
}
