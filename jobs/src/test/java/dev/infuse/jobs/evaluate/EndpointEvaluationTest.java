package dev.infuse.jobs.evaluate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.infuse.jobs.QualitySample;
import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.jobs.contract.Contracts;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.udfs.llm.FakeOpenAiServer;
import dev.infuse.udfs.text.Tokenizers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code evaluate} over a sweep of two models trained on two shard builds of one generator's
 * synthetic QA: one a model directory that {@code train} wrote from build A, the other a model
 * served by an OpenAI-compatible endpoint (the loopback server) said to be trained on build B. Both
 * answer by log-likelihood, and the scaling fit runs over both.
 */
class EndpointEvaluationTest {
  private static final SparkSession SPARK = SparkTestSession.get();
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String GENERATOR = "openai:fake-generator";
  private static final int QUESTIONS = 4;

  private static String warehouse;
  private static Path tokenizer;
  private static FakeOpenAiServer server;

  @BeforeAll
  static void buildTwoShardBuildsAndTrainOnOne() throws Exception {
    warehouse = QualitySample.ingestedCopy("endpoint-evaluate");
    Path home = SparkTestSession.tempDir("endpoint-evaluate-home");
    Warehouse w = new Warehouse(SPARK, warehouse);
    List<String> docs =
        w.read("documents")
            .select("doc_id")
            .orderBy("doc_id")
            .as(org.apache.spark.sql.Encoders.STRING())
            .collectAsList();
    // Synthetic QA of one generator: what gen-qa against a vLLM server would have written.
    Random random = new Random(3);
    String[] words =
        ("harbor lantern orchard signal violin meadow glacier saddle walnut candle marble"
                + " ticket kettle rocket tunnel feather basket anchor ladder camera desert")
            .split(" ");
    List<Row> qa = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      qa.add(
          RowFactory.create(
              String.format("fake-qa-%02d", i),
              docs.get(i % docs.size()),
              null,
              "What did the " + phrase(random, words, 5) + " do?",
              "It " + phrase(random, words, 8) + ".",
              GENERATOR,
              "gen-qa",
              1,
              0L,
              "fake-key-" + i));
    }
    w.append(
        Contracts.load("synthetic_qa"),
        SPARK.createDataFrame(qa, Contracts.load("synthetic_qa").schema()));
    for (String[] build : List.of(new String[] {"qa-a", "400"}, new String[] {"qa-b", "0"})) {
      Files.writeString(
          home.resolve(build[0] + ".yaml"),
          "name: "
              + build[0]
              + "\nversion: 1\ntotal_tokens: "
              + build[1]
              + "\nqa_fraction: 1.0\nreplay_fraction: 0.0\n"
              + "document_weights: {documents: 1.0}\nmax_epochs: 1\nseed: 5\n");
      CliResult shards =
          SparkTestSession.cli(
              "build-shards",
              "--warehouse",
              warehouse,
              "--mixture",
              home.resolve(build[0] + ".yaml").toString(),
              "--output",
              "shards/" + build[0],
              "--sequence-length",
              "32",
              "--formats",
              "parquet");
      assertThat(shards.code()).as(shards.toString()).isZero();
    }
    CliResult train =
        SparkTestSession.cli(
            "train",
            "--warehouse",
            warehouse,
            "--shards",
            Path.of(warehouse, "shards/qa-a").toString(),
            "--model-dir",
            "models/qa-a",
            "--steps",
            "2",
            "--set",
            "train.layers=1",
            "--set",
            "train.d_model=32",
            "--set",
            "train.heads=2",
            "--set",
            "train.sequence_length=32",
            "--set",
            "train.warmup_steps=1",
            "--set",
            "train.device=cpu");
    assertThat(train.code()).as(train.toString()).isZero();
    tokenizer = home.resolve("served-tokenizer.json");
    Files.write(tokenizer, Tokenizers.defaultTokenizerJson());
    server = new FakeOpenAiServer();
  }

  @AfterAll
  static void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void aDirectoryModelAndAnEndpointModelShareOneScalingFit() throws Exception {
    CliResult evaluation =
        SparkTestSession.cli(
            "evaluate",
            "--warehouse",
            warehouse,
            "--benchmarks",
            "quality",
            "--settings",
            "trained",
            "--set",
            "evaluate.models=[models/qa-a, {name: served-b, base_url: '"
                + server.baseUrl()
                + "', model: llama-smt-b, tokenizer: '"
                + tokenizer
                + "', shards: shards/qa-b}]",
            "--set",
            "evaluate.compare=[]",
            "--set",
            "evaluate.report=false",
            "--set",
            "answer.max_questions=" + QUESTIONS,
            "--set",
            "llm.device=cpu",
            "--set",
            "llm.initial_backoff_millis=10",
            "--set",
            "score.bootstrap_resamples=100");
    assertThat(evaluation.code()).as(evaluation.toString()).isZero();
    assertThat(evaluation.out())
        .contains("model served-b (llama-smt-b at " + server.baseUrl() + ")")
        .contains("fit-scaling: quality, trained over 2 models");
    assertThat(server.completionRequests()).as("every option of every question").isEqualTo(16);

    long uniqueA = unique("shards/qa-a");
    long uniqueB = unique("shards/qa-b");
    assertThat(uniqueA).isPositive().isLessThan(uniqueB);

    Warehouse w = new Warehouse(SPARK, warehouse);
    Row fit =
        w
            .read("scaling_fits")
            .filter("metric = 'accuracy'")
            .orderBy("score_run_id")
            .collectAsList()
            .stream()
            .reduce((a, b) -> b)
            .orElseThrow();
    assertThat(fit.<Integer>getAs("n_points")).isEqualTo(2);
    assertThat(fit.<String>getAs("generator")).isEqualTo(GENERATOR);
    assertThat(fit.<String>getAs("token_count")).isEqualTo("unique");
    List<Row> points = fit.getList(fit.fieldIndex("points"));
    Map<Long, String> runByTokens =
        points.stream()
            .collect(Collectors.toMap(p -> p.<Long>getAs("tokens"), p -> p.getAs("run_id")));
    assertThat(runByTokens).containsOnlyKeys(uniqueA, uniqueB);

    // The directory model answered in the JVM, the endpoint over HTTP; both by log-likelihood, both
    // placed on the axis by their shard build.
    Row a = w.read("predictions").filter("run_id = '" + runByTokens.get(uniqueA) + "'").head();
    assertThat(a.<String>getAs("backend")).isEqualTo("djl");
    assertThat(a.<String>getAs("answer_mode")).isEqualTo("loglikelihood");
    assertThat(a.<String>getAs("generator")).isEqualTo(GENERATOR);
    List<Row> b =
        w.read("predictions").filter("run_id = '" + runByTokens.get(uniqueB) + "'").collectAsList();
    assertThat(b).hasSize(QUESTIONS);
    for (Row p : b) {
      assertThat(p.<String>getAs("backend")).isEqualTo("openai");
      assertThat(p.<String>getAs("model")).isEqualTo("llama-smt-b");
      assertThat(p.<String>getAs("answer_mode")).isEqualTo("loglikelihood");
      assertThat(p.<Long>getAs("unique_synthetic_tokens")).isEqualTo(uniqueB);
      assertThat(p.<String>getAs("generator")).isEqualTo(GENERATOR);
      assertThat(p.getList(p.fieldIndex("option_scores"))).hasSize(4);
    }

    // With two points the line goes through both: the fit is over exactly these two accuracies.
    for (Row point : points) {
      double x = Math.log(point.<Long>getAs("tokens"));
      assertThat(fit.<Double>getAs("intercept") + fit.<Double>getAs("slope") * x)
          .isCloseTo(point.<Double>getAs("value"), within(1e-9));
      double accuracy =
          w.read("predictions")
              .filter("run_id = '" + point.getAs("run_id") + "'")
              .selectExpr("avg(CASE WHEN correct THEN 1.0D ELSE 0.0D END)")
              .head()
              .getDouble(0);
      assertThat(point.<Double>getAs("value")).isCloseTo(accuracy, within(1e-9));
    }
  }

  @Test
  void endpointEntriesAreCheckedBeforeAnyJobRuns() {
    int before = server.completionRequests();
    CliResult bad =
        SparkTestSession.cli(
            "evaluate",
            "--warehouse",
            warehouse,
            "--benchmarks",
            "quality",
            "--settings",
            "trained",
            "--set",
            "evaluate.models=[models/qa-a, {name: no-tokenizer, base_url: '"
                + server.baseUrl()
                + "', model: m1}, {name: no-build, base_url: '"
                + server.baseUrl()
                + "', model: m2, tokenizer: '"
                + tokenizer
                + "', shards: shards/none}, {name: no-file, base_url: '"
                + server.baseUrl()
                + "', model: m3, tokenizer: /nowhere/tokenizer.json}]");
    assertThat(bad.code()).isEqualTo(2);
    assertThat(bad.err())
        .contains(
            "evaluate.models[1].tokenizer: got nothing for endpoint model no-tokenizer, expected"
                + " the served model's tokenizer.json: answer.mode auto scores quality by"
                + " log-likelihood")
        .contains("evaluate.models[2].shards: got shards/none (")
        .contains("which has no info.json")
        .contains(
            "evaluate.models[3].tokenizer: got /nowhere/tokenizer.json, which does not exist");
    assertThat(server.completionRequests()).isEqualTo(before);
  }

  private static long unique(String build) throws Exception {
    JsonNode info = JSON.readTree(Path.of(warehouse, build, "info.json").toFile());
    assertThat(info.at("/synthetic_token_counts/by_generator").has(GENERATOR)).isTrue();
    return info.at("/synthetic_token_counts/unique").asLong();
  }

  private static String phrase(Random random, String[] words, int n) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < n; i++) {
      text.append(i == 0 ? "" : " ").append(words[random.nextInt(words.length)]);
    }
    return text.toString();
  }
}
