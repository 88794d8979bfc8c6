package dev.infuse.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.udfs.llm.FakeOpenAiServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code evaluate}: one config runs the whole SMT evaluation on QuALITY (the demo's sample),
 * LongHealth (the benchmark_v5.json-shaped fixture) and FinanceBench (the first records of the real
 * file), given the shards and model directories the demo built. Closed book and RAG go to an
 * OpenAI-compatible server (a stand-in for vLLM); the trained settings run two of the demo's
 * models, trained on shards cut at 20k and 80k tokens, so the scaling fit has a sweep.
 */
class EvaluateEndToEndTest {
  private static final SparkSession SPARK = SparkTestSession.get();
  private static final List<String> BENCHMARKS = List.of("quality", "longhealth", "financebench");
  private static final int QUESTIONS = 3;
  private static String warehouse;
  private static FakeOpenAiServer server;
  private static CliResult evaluation;
  private static List<String> answerRuns;

  @BeforeAll
  static void evaluateACopyOfTheDemoWarehouse() throws IOException {
    // A copy: the demo's own warehouse is asserted on by other tests.
    warehouse = SparkTestSession.tempDir("evaluate").resolve("warehouse").toString();
    copy(Path.of(DemoWarehouse.get()), Path.of(warehouse));
    Path financeBench =
        SparkTestSession.tempDir("evaluate-fb").resolve("financebench_open_source.jsonl");
    try (var lines =
        Files.lines(
            SparkTestSession.benchmark("financebench").resolve("financebench_open_source.jsonl"))) {
      Files.write(financeBench, lines.limit(6).toList());
    }
    ingest(
        "longhealth",
        SparkTestSession.repoRoot()
            .resolve("udfs/src/test/resources/ingest/longhealth/benchmark_v5_fixture.json"));
    ingest("financebench", financeBench);

    server = new FakeOpenAiServer();
    // A stand-in reader: option B for choice questions, 42 for FinanceBench; its judge finds every
    // free
    // answer wrong.
    server.setResponder(
        request -> {
          String text = request.toString();
          if (text.contains("VERDICT")) {
            return "The answer does not match the reference.\nVERDICT: INCORRECT";
          }
          return text.contains("(B)") ? "The answer is (B)." : "The final answer is 42.";
        });
    evaluation =
        SparkTestSession.cli(
            "evaluate",
            "--warehouse",
            warehouse,
            "--benchmarks",
            String.join(",", BENCHMARKS),
            "--models",
            "models/tiny-20k,models/tiny",
            "--set",
            "llm.backend=openai",
            "--set",
            "llm.base_url=" + server.baseUrl(),
            "--set",
            "llm.model=fake-vllm",
            "--set",
            "llm.initial_backoff_millis=10",
            "--set",
            "llm.device=cpu",
            "--set",
            "answer.max_questions=" + QUESTIONS,
            "--set",
            "answer.max_tokens=8",
            "--set",
            "score.bootstrap_resamples=200");
    assertThat(evaluation.code()).as(evaluation.toString()).isZero();
    Matcher scoreRun =
        Pattern.compile("Evaluation \\(score run (\\S+)\\)").matcher(evaluation.out());
    assertThat(scoreRun.find()).as(evaluation.out()).isTrue();
    answerRuns =
        new Warehouse(SPARK, warehouse)
            .read("scores")
            .filter("score_run_id = '" + scoreRun.group(1) + "'")
            .select("run_id")
            .distinct()
            .as(org.apache.spark.sql.Encoders.STRING())
            .collectAsList();
  }

  @AfterAll
  static void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  private static void ingest(String format, Path input) {
    CliResult result =
        SparkTestSession.cli(
            "ingest", "--format", format, "--input", input.toString(), "--warehouse", warehouse);
    assertThat(result.code()).as(result.toString()).isZero();
  }

  private static void copy(Path from, Path to) throws IOException {
    try (Stream<Path> paths = Files.walk(from)) {
      paths.forEach(
          source -> {
            try {
              Path target = to.resolve(from.relativize(source).toString());
              if (Files.isDirectory(source)) {
                Files.createDirectories(target);
              } else {
                Files.copy(source, target, StandardCopyOption.COPY_ATTRIBUTES);
              }
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
          });
    }
  }

  private static Dataset<Row> evaluated(String table) {
    return new Warehouse(SPARK, warehouse)
        .read(table)
        .filter(org.apache.spark.sql.functions.col("run_id").isin(answerRuns.toArray()));
  }

  @Test
  void everyBenchmarkIsAnsweredInEverySettingAndEveryModel() {
    // chunk, index, 3 retrieves, 3 x (2 + 2 x 2) answers, score, 3 x 2 fits, report.
    assertThat(evaluation.out())
        .contains(
            "== 1/31 chunk",
            "== 2/31 index",
            "== 3/31 retrieve: quality",
            "== 5/31 retrieve: financebench",
            "== 31/31 report");
    assertThat(answerRuns).hasSize(18);
    // Each model's choice benchmarks (quality, longhealth; trained and trained_rag) are scored in
    // one pass per model; FinanceBench's free answers are generated one run at a time.
    // Each of the 8 runs says so.
    assertThat(
            evaluation
                .out()
                .split(
                    "answered in one Spark pass with 3 other run\\(s\\) that share loglikelihood",
                    -1))
        .hasSize(2 * 4 + 1);
    Map<String, Long> runsPerSetting =
        evaluated("predictions")
            .groupBy("setting")
            .agg(org.apache.spark.sql.functions.countDistinct("run_id"))
            .collectAsList()
            .stream()
            .collect(Collectors.toMap(r -> r.getString(0), r -> r.getLong(1)));
    assertThat(runsPerSetting)
        .containsOnly(
            Map.entry("closed_book", 3L),
            Map.entry("rag", 3L),
            Map.entry("trained", 6L),
            Map.entry("trained_rag", 6L));
    for (String benchmark : BENCHMARKS) {
      Dataset<Row> ofBenchmark =
          evaluated("predictions").filter("question_id LIKE '" + benchmark + ":%'");
      assertThat(ofBenchmark.select("setting").distinct().count()).as(benchmark).isEqualTo(4);
      assertThat(ofBenchmark.count()).as(benchmark).isEqualTo(6L * QUESTIONS);
    }
    // closed_book and rag went to the configured server; the trained settings to the models through
    // djl.
    assertThat(
            evaluated("predictions")
                .filter("setting IN ('closed_book', 'rag') AND backend <> 'openai'")
                .count())
        .isZero();
    assertThat(
            evaluated("predictions").filter("setting LIKE 'trained%' AND backend <> 'djl'").count())
        .isZero();
    assertThat(
            evaluated("predictions")
                .filter("setting LIKE 'trained%'")
                .select("synthetic_tokens")
                .distinct()
                .count())
        .isEqualTo(2);
    Warehouse w = new Warehouse(SPARK, warehouse);
    assertThat(w.read("retrievals").select("benchmark").distinct().count()).isEqualTo(3);
    assertThat(w.read("retrieval_recall").filter("benchmark = 'financebench'").count())
        .isPositive();
    assertThat(w.read("runs").filter("status <> 'succeeded'").count()).isZero();
    assertThat(evaluation.out())
        .contains("Evaluation (score run")
        .contains(
            " fit (extractive:extractive-v1, unique synthetic tokens (tokenizer default)): accuracy = ");
  }

  @Test
  void scoresCarryCisAndEqualThePredictionsTheyGrade() {
    List<Row> accuracy =
        evaluated("scores").filter("subset = 'all' AND metric = 'accuracy'").collectAsList();
    assertThat(accuracy).hasSize(18);
    Map<String, Double> correctShare =
        evaluated("predictions")
            .groupBy("run_id")
            .agg(
                org.apache.spark.sql.functions.avg(
                    org.apache.spark.sql.functions.col("correct").cast("double")))
            .collectAsList()
            .stream()
            .collect(
                Collectors.toMap(r -> r.getString(0), r -> r.isNullAt(1) ? -1.0 : r.getDouble(1)));
    for (Row score : accuracy) {
      double value = score.getAs("value");
      assertThat(score.<Long>getAs("n")).isEqualTo(QUESTIONS);
      assertThat(score.<Double>getAs("ci_low")).isLessThanOrEqualTo(value);
      assertThat(score.<Double>getAs("ci_high")).isGreaterThanOrEqualTo(value);
      if (!"financebench".equals(score.getAs("benchmark"))) {
        // Choice questions are graded by the answer job; FinanceBench by number, then by the judge.
        assertThat(value)
            .as(score.toString())
            .isCloseTo(correctShare.get(score.<String>getAs("run_id")), within(1e-9));
      }
    }
    // The stand-in reader always says B: closed book scores the share of gold B among the questions
    // asked.
    Warehouse w = new Warehouse(SPARK, warehouse);
    for (String benchmark : List.of("quality", "longhealth")) {
      long goldB =
          w.read("questions")
              .filter("benchmark = '" + benchmark + "'")
              .orderBy("question_id")
              .limit(QUESTIONS)
              .filter("gold = 'B'")
              .count();
      assertThat(
              accuracy.stream()
                  .filter(
                      s ->
                          benchmark.equals(s.getAs("benchmark"))
                              && "closed_book".equals(s.getAs("setting")))
                  .map(s -> s.<Double>getAs("value"))
                  .toList())
          .as(benchmark)
          .containsExactly((double) goldB / QUESTIONS);
    }
    // The judge saw FinanceBench's free answers (42 matched no gold number) and its verdicts were
    // counted.
    assertThat(
            accuracy.stream()
                .filter(
                    s ->
                        "financebench".equals(s.getAs("benchmark"))
                            && "closed_book".equals(s.getAs("setting")))
                .map(s -> s.<Double>getAs("value"))
                .toList())
        .containsExactly(0.0);
    assertThat(server.received().stream().anyMatch(r -> r.body().contains("VERDICT"))).isTrue();
  }

  @Test
  void comparisonsPairTheSettingsOnEveryBenchmarkWithTheLastModel() {
    List<Row> comparisons =
        new Warehouse(SPARK, warehouse)
            .read("score_comparisons")
            .filter(org.apache.spark.sql.functions.col("run_id_a").isin(answerRuns.toArray()))
            .filter("subset = 'all' AND metric = 'accuracy'")
            .collectAsList();
    assertThat(comparisons).hasSize(9);
    assertThat(
            comparisons.stream()
                .map(c -> c.<String>getAs("setting_a") + ">" + c.<String>getAs("setting_b"))
                .distinct()
                .sorted()
                .toList())
        .containsExactly("closed_book>trained", "rag>trained", "rag>trained_rag");
    Map<String, Long> tokensByRun =
        evaluated("predictions")
            .filter("synthetic_tokens IS NOT NULL")
            .select("run_id", "synthetic_tokens")
            .distinct()
            .collectAsList()
            .stream()
            .collect(Collectors.toMap(r -> r.getString(0), r -> r.getLong(1)));
    long largest = tokensByRun.values().stream().mapToLong(Long::longValue).max().orElseThrow();
    for (Row c : comparisons) {
      assertThat(tokensByRun.get(c.<String>getAs("run_id_b"))).as(c.toString()).isEqualTo(largest);
      assertThat(c.<Double>getAs("diff"))
          .isCloseTo(c.<Double>getAs("value_b") - c.<Double>getAs("value_a"), within(1e-12));
    }
  }

  @Test
  void theScalingFitRunsOverTheModelsAgainstRagAndTheReportShowsIt() throws IOException {
    Warehouse w = new Warehouse(SPARK, warehouse);
    List<Row> fits =
        w.read("scaling_fits").collectAsList().stream()
            .filter(
                f ->
                    f.<Row>getList(f.fieldIndex("points")).stream()
                        .allMatch(p -> answerRuns.contains(p.getString(0))))
            .toList();
    assertThat(fits).hasSize(6);
    assertThat(
            fits.stream()
                .map(f -> f.<String>getAs("benchmark") + "/" + f.<String>getAs("setting"))
                .sorted()
                .toList())
        .containsExactly(
            "financebench/trained",
            "financebench/trained_rag",
            "longhealth/trained",
            "longhealth/trained_rag",
            "quality/trained",
            "quality/trained_rag");
    for (Row fit : fits) {
      assertThat(fit.<Integer>getAs("n_points")).isEqualTo(2);
      assertThat(fit.<String>getAs("baseline_setting")).isEqualTo("rag");
      double rag =
          evaluated("scores")
              .filter(
                  "benchmark = '"
                      + fit.getAs("benchmark")
                      + "' AND setting = 'rag'"
                      + " AND subset = 'all' AND metric = 'accuracy'")
              .head()
              .getAs("value");
      assertThat(fit.<Double>getAs("baseline_value")).isEqualTo(rag);
      // Two points: the line passes through both.
      for (Row point : fit.<Row>getList(fit.fieldIndex("points"))) {
        double predicted =
            fit.<Double>getAs("intercept")
                + fit.<Double>getAs("slope") * Math.log(point.getLong(1));
        assertThat(predicted).isCloseTo(point.getDouble(2), within(1e-9));
      }
    }
    String report =
        evaluation
            .out()
            .lines()
            .filter(l -> l.strip().startsWith("report: ") && l.endsWith("report.html"))
            .findFirst()
            .orElseThrow()
            .strip()
            .substring("report: ".length());
    JsonNode numbers =
        new ObjectMapper().readTree(Path.of(report).resolveSibling("report.json").toFile());
    assertThat(numbers.get("scaling_fits")).hasSize(6);
    assertThat(numbers.get("score_comparisons").size()).isGreaterThanOrEqualTo(9);
    assertThat(Files.readString(Path.of(report)))
        .contains("<img")
        .contains("financebench")
        .contains("longhealth");
  }

  @Test
  void badEvaluationsFailBeforeAnyJobRuns() {
    // ANLI: a benchmark the demo's warehouse does not hold (it ingests QuALITY, GSM8K and MedQA).
    CliResult notIngested =
        SparkTestSession.cli(
            "evaluate",
            "--warehouse",
            warehouse,
            "--benchmarks",
            "anli",
            "--settings",
            "closed_book");
    assertThat(notIngested.code()).isEqualTo(2);
    assertThat(notIngested.err())
        .contains("evaluate.benchmarks: got anli, but questions holds none of its questions")
        .contains("infuse ingest --format anli");
    CliResult noModels =
        SparkTestSession.cli("evaluate", "--warehouse", warehouse, "--settings", "rag,trained");
    assertThat(noModels.code()).isEqualTo(2);
    assertThat(noModels.err())
        .contains(
            "evaluate.models: got [] with settings [trained], expected one or more model"
                + " directories written by train");
    CliResult notAModel =
        SparkTestSession.cli("evaluate", "--warehouse", warehouse, "--models", "shards/demo");
    assertThat(notAModel.code()).isEqualTo(2);
    assertThat(notAModel.err())
        .contains("evaluate.models[0]: got shards/demo")
        .contains("expected a model directory");
    CliResult tooFewRetrieved =
        SparkTestSession.cli(
            "evaluate",
            "--warehouse",
            warehouse,
            "--models",
            "models/tiny",
            "--set",
            "answer.k=12");
    assertThat(tooFewRetrieved.code()).isEqualTo(2);
    assertThat(tooFewRetrieved.err())
        .contains("answer.k: got 12 with retrieve.k 10, expected answer.k <= retrieve.k");
    CliResult badPair =
        SparkTestSession.cli(
            "evaluate", "--warehouse", warehouse, "--set", "evaluate.compare=[[rag, rga]]");
    assertThat(badPair.code()).isEqualTo(2);
    assertThat(badPair.err())
        .contains(
            "evaluate.compare: got rga, expected closed_book, rag, trained or trained_rag; did you"
                + " mean rag?");
  }
}
