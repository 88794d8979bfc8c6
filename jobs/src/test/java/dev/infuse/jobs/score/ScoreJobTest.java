package dev.infuse.jobs.score;

import static org.apache.spark.sql.functions.col;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.jobs.contract.Contract;
import dev.infuse.jobs.contract.Contracts;
import dev.infuse.jobs.generate.RequestBuilder;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.jobs.spark.SparkRows;
import dev.infuse.udfs.llm.FakeOpenAiServer;
import dev.infuse.udfs.score.Bootstrap;
import dev.infuse.udfs.score.Interval;
import dev.infuse.udfs.score.PairedDifference;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/**
 * score end to end on hand-made predictions (written with the agreed predictions schema) and
 * questions: accuracy and acc_norm per subset with intervals, FinanceBench free answers graded by
 * tolerance and by an LLM judge behind a real OpenAI-compatible HTTP server, quarantine, and the
 * paired comparison.
 */
class ScoreJobTest {
  private static final SparkSession SPARK = SparkTestSession.get();
  private static final List<String> OPTIONS = List.of("red", "green", "a blue one", "yellow");

  @Test
  void scoresSubsetsAccNormFinanceBenchAndAPairedComparison() throws Exception {
    String warehouse = SparkTestSession.tempDir("score").toString();
    Warehouse w = new Warehouse(SPARK, warehouse);
    List<Row> questions = new ArrayList<>();
    for (int i = 1; i <= 6; i++) {
      questions.add(
          question(
              "quality:q" + i,
              "quality",
              "mcq",
              OPTIONS,
              "A",
              0,
              i <= 3 ? List.of("difficult") : List.of()));
    }
    questions.add(
        question(
            "financebench:f1", "financebench", "free", null, "$1,577 million", null, List.of()));
    questions.add(
        question("financebench:f2", "financebench", "free", null, "12.5%", null, List.of()));
    questions.add(
        question(
            "financebench:f3",
            "financebench",
            "free",
            null,
            "Yes, it is capital intensive.",
            null,
            List.of()));
    questions.add(
        question(
            "financebench:f4", "financebench", "free", null, "No, margins fell.", null, List.of()));
    write(w, "questions", questions);

    List<Row> predictions = new ArrayList<>();
    // rag: loglikelihood. acc (correct) follows the raw sums; acc_norm divides by the option's
    // characters:
    // [-2, -3, -4, -9] / [3, 5, 10, 6] = [-0.67, -0.6, -0.4, -1.5] picks C (wrong) where acc picks
    // A (right).
    boolean[] ragCorrect = {true, false, true, false, true, true};
    for (int i = 1; i <= 6; i++) {
      List<Double> scores =
          i % 2 == 1 ? List.of(-2.0, -3.0, -4.0, -9.0) : List.of(-1.0, -9.0, -20.0, -9.0);
      predictions.add(
          prediction(
              "ans-rag",
              "quality:q" + i,
              "quality",
              "rag",
              "loglikelihood",
              ragCorrect[i - 1] ? "A" : "B",
              ragCorrect[i - 1],
              scores,
              null));
    }
    boolean[] trainedCorrect = {true, true, true, true, true, true};
    for (int i = 1; i <= 6; i++) {
      predictions.add(
          prediction(
              "ans-trained",
              "quality:q" + i,
              "quality",
              "trained",
              "generate",
              "A",
              trainedCorrect[i - 1],
              null,
              4000L));
    }
    predictions.add(
        prediction(
            "ans-fb",
            "financebench:f1",
            "financebench",
            "closed_book",
            "generate",
            "The capex was 1.577 billion dollars.",
            null,
            null,
            null));
    predictions.add(
        prediction(
            "ans-fb",
            "financebench:f2",
            "financebench",
            "closed_book",
            "generate",
            "0.13",
            null,
            null,
            null));
    predictions.add(
        prediction(
            "ans-fb",
            "financebench:f3",
            "financebench",
            "closed_book",
            "generate",
            "Yes: it spends heavily on plants.",
            null,
            null,
            null));
    predictions.add(
        prediction(
            "ans-fb",
            "financebench:f4",
            "financebench",
            "closed_book",
            "generate",
            "Margins went up.",
            null,
            null,
            null));
    predictions.add(
        prediction(
            "ans-fb",
            "financebench:gone",
            "financebench",
            "closed_book",
            "generate",
            "1",
            null,
            null,
            null));
    write(w, "predictions", predictions);

    try (FakeOpenAiServer server = new FakeOpenAiServer()) {
      server.setResponder(
          request ->
              request.toString().contains("Margins went up")
                  ? "It contradicts the gold answer.\nVERDICT: INCORRECT"
                  : "Same conclusion.\nVERDICT: CORRECT");
      String[] args = {
        "score",
        "--warehouse",
        warehouse,
        "--compare",
        "ans-rag,ans-trained",
        "--resamples",
        "500",
        "--set",
        "llm.backend=openai",
        "--set",
        "llm.base_url=" + server.baseUrl(),
        "--set",
        "llm.model=judge-1",
        "--set",
        "llm.initial_backoff_millis=10"
      };
      CliResult result = SparkTestSession.cli(args);
      assertThat(result.code()).as(result.toString()).isZero();
      assertThat(server.totalRequests()).isEqualTo(2);
      assertThat(result.out()).contains("score: 17 prediction(s), 16 graded, 1 quarantined");

      Row rag = score(w, "ans-rag", "all", "accuracy");
      assertThat(rag.<Double>getAs("value")).isCloseTo(4 / 6.0, within(1e-12));
      assertThat(rag.<Long>getAs("n")).isEqualTo(6);
      assertThat(rag.<Double>getAs("ci_low")).isLessThan(4 / 6.0);
      assertThat(rag.<Double>getAs("ci_high")).isGreaterThan(4 / 6.0);
      assertThat(rag.<String>getAs("config_hash")).isEqualTo("hash-ans-rag");
      assertThat(rag.getList(rag.fieldIndex("prompt_versions"))).containsExactly("mcq@1");
      assertThat(rag.<String>getAs("score_run_id")).startsWith("score-");
      assertThat(score(w, "ans-rag", "difficult", "accuracy").<Double>getAs("value"))
          .isCloseTo(2 / 3.0, within(1e-12));
      // acc_norm: odd questions pick C (wrong); even ones pick A (-1/3 beats -9/5, -20/10, -9/6).
      assertThat(score(w, "ans-rag", "all", "acc_norm").<Double>getAs("value"))
          .isCloseTo(3 / 6.0, within(1e-12));
      assertThat(score(w, "ans-rag", "difficult", "acc_norm").<Double>getAs("value"))
          .isCloseTo(1 / 3.0, within(1e-12));
      assertThat(w.read("scores").filter("run_id = 'ans-trained' AND metric = 'acc_norm'").count())
          .isZero();
      Row trained = score(w, "ans-trained", "all", "accuracy");
      assertThat(trained.<Double>getAs("value")).isEqualTo(1.0);
      assertThat(trained.<Long>getAs("synthetic_tokens")).isEqualTo(4000L);
      assertThat(trained.<Long>getAs("unique_synthetic_tokens")).isEqualTo(1000L);
      assertThat(trained.<Long>getAs("seen_synthetic_tokens")).isEqualTo(2000L);
      assertThat(trained.<String>getAs("count_tokenizer"))
          .isEqualTo("/models/llama/tokenizer.json");
      assertThat(trained.<String>getAs("generator")).isEqualTo("openai:gpt-4o-mini");
      assertThat(rag.<String>getAs("generator")).isNull();

      // f1 by tolerance (1.577 billion = $1,577 million), f2 wrong by tolerance (0.13 vs 0.125), f3
      // and f4 by the judge.
      Row fb = score(w, "ans-fb", "all", "accuracy");
      assertThat(fb.<Double>getAs("value")).isCloseTo(2 / 4.0, within(1e-12));
      assertThat(fb.<Long>getAs("n")).isEqualTo(4);
      assertThat(fb.getList(fb.fieldIndex("prompt_versions")))
          .containsExactly("financebench-judge@1", "mcq@1");
      assertThat(
              w.read("quarantine")
                  .filter(
                      "job = 'score' AND location LIKE '%financebench:gone%'"
                          + " AND reason LIKE 'question_id:%'")
                  .count())
          .isEqualTo(1);

      Row cmp = w.read("score_comparisons").filter("subset = 'all' AND metric = 'accuracy'").head();
      assertThat(cmp.<String>getAs("run_id_a")).isEqualTo("ans-rag");
      assertThat(cmp.<String>getAs("setting_b")).isEqualTo("trained");
      assertThat(cmp.<Long>getAs("n")).isEqualTo(6);
      assertThat(cmp.<Double>getAs("diff")).isCloseTo(2 / 6.0, within(1e-12));
      // By hand: the per-question differences are (0, 1, 0, 1, 0, 0), d = 1/3. A resample drawing
      // K of the two 1s (K ~ Binomial(6, 1/3)) has d* = K/6, and |K/6 - 2/6| >= 2/6 iff K = 0 or
      // K >= 4: p = (64 + 60 + 12 + 1) / 729 = 137/729, up to the noise of 500 resamples (4 sd).
      double byHand = 137 / 729.0;
      assertThat(cmp.<Double>getAs("p_value"))
          .isCloseTo(byHand, within(4 * Math.sqrt(byHand * (1 - byHand) / 500)));
      // accuracy, accuracy_attempted and parse_rate: the metrics both runs have.
      assertThat(w.read("score_comparisons").filter("subset = 'difficult'").count()).isEqualTo(3);

      // A rerun judges nothing again (llm_calls) and writes the same numbers (seeded), under its
      // own score_run_id.
      long rows = w.read("scores").count();
      CliResult again = SparkTestSession.cli(args);
      assertThat(again.code()).as(again.toString()).isZero();
      assertThat(server.totalRequests()).isEqualTo(2);
      assertThat(w.read("scores").count()).isEqualTo(rows);
      Row rerun = score(w, "ans-rag", "all", "accuracy");
      assertThat(rerun.<Double>getAs("ci_low")).isEqualTo(rag.<Double>getAs("ci_low"));
      assertThat(rerun.<Double>getAs("ci_high")).isEqualTo(rag.<Double>getAs("ci_high"));
      assertThat(rerun.<String>getAs("score_run_id"))
          .isNotEqualTo(rag.<String>getAs("score_run_id"));
      assertThat(w.read("runs").filter("job = 'score' AND status = 'succeeded'").count())
          .isEqualTo(2);
    }
  }

  @Test
  void reorderingAndRepartitioningThePredictionsChangesNoScoreIntervalOrPValue() {
    List<Row> questions = new ArrayList<>();
    List<Row> predictions = new ArrayList<>();
    for (int i = 1; i <= 12; i++) {
      String id = String.format(Locale.ROOT, "quality:q%02d", i);
      questions.add(
          question(
              id,
              "quality",
              "mcq",
              OPTIONS,
              "A",
              0,
              i % 3 == 0 ? List.of("difficult") : List.of()));
      boolean ragRight = i % 2 == 0 || i == 5;
      List<Double> scores =
          i % 4 == 1 ? List.of(-2.0, -3.0, -4.0, -9.0) : List.of(-1.0, -9.0, -20.0, -9.0);
      predictions.add(
          prediction(
              "ans-rag",
              id,
              "quality",
              "rag",
              "loglikelihood",
              ragRight ? "A" : "B",
              ragRight,
              scores,
              null));
      boolean trainedRight = i % 5 != 0;
      predictions.add(
          prediction(
              "ans-trained",
              id,
              "quality",
              "trained",
              "generate",
              trainedRight ? "A" : "C",
              trainedRight,
              null,
              1000L));
    }
    String[] args = {"--compare", "ans-rag,ans-trained", "--resamples", "300", "--seed", "7"};

    // In order, in one write.
    Warehouse ordered = new Warehouse(SPARK, SparkTestSession.tempDir("score-ordered").toString());
    write(ordered, "questions", questions);
    write(ordered, "predictions", predictions);
    // Shuffled, in three writes of two files each, and scored with another number of shuffle
    // partitions: the job reads the rows in another order, split otherwise across tasks, and
    // gathers each score's values through other partitions.
    Warehouse shuffled =
        new Warehouse(SPARK, SparkTestSession.tempDir("score-shuffled").toString());
    List<Row> shuffledQuestions = new ArrayList<>(questions);
    Collections.shuffle(shuffledQuestions, new Random(1));
    write(shuffled, "questions", shuffledQuestions);
    List<Row> shuffledPredictions = new ArrayList<>(predictions);
    Collections.shuffle(shuffledPredictions, new Random(2));
    Contract contract = Contracts.load("predictions");
    for (int part = 0; part < 3; part++) {
      List<Row> batch = shuffledPredictions.subList(part * 8, part * 8 + 8);
      shuffled.upsert(contract, SPARK.createDataFrame(batch, contract.schema()).repartition(2));
    }
    assertThat(partitionsOfKeys(shuffled)).isNotEqualTo(partitionsOfKeys(ordered));

    runScore(ordered, args);
    String shufflePartitions = SPARK.conf().get("spark.sql.shuffle.partitions");
    SPARK.conf().set("spark.sql.shuffle.partitions", "5");
    try {
      runScore(shuffled, args);
    } finally {
      SPARK.conf().set("spark.sql.shuffle.partitions", shufflePartitions);
    }
    // scores: accuracy, accuracy_attempted, parse_rate and acc_norm of rag, the first three of
    // trained, under all and difficult; score_comparisons: the three they share, under both.
    Map<String, Integer> rows = Map.of("scores", 14, "score_comparisons", 6);
    rows.forEach(
        (table, count) -> {
          List<Row> a = withoutScoreRunId(ordered, table);
          assertThat(a).as(table).hasSize(count);
          assertThat(withoutScoreRunId(shuffled, table)).as(table).containsExactlyElementsOf(a);
        });

    // And the numbers are the bootstrap's on the questions sorted by id, seeded by the score's key.
    double[] rag = new double[12];
    double[] trained = new double[12];
    for (int i = 1; i <= 12; i++) {
      rag[i - 1] = i % 2 == 0 || i == 5 ? 1 : 0;
      trained[i - 1] = i % 5 != 0 ? 1 : 0;
    }
    Bootstrap bootstrap = new Bootstrap(300, 0.95);
    Interval interval =
        bootstrap.mean(
            rag, RequestBuilder.seedFor(7, "score", "ans-rag", "quality", "all", "accuracy"));
    Row ragRow = score(shuffled, "ans-rag", "all", "accuracy");
    assertThat(ragRow.<Double>getAs("value")).isEqualTo(interval.value());
    assertThat(ragRow.<Double>getAs("ci_low")).isEqualTo(interval.low());
    assertThat(ragRow.<Double>getAs("ci_high")).isEqualTo(interval.high());
    PairedDifference paired =
        bootstrap.paired(
            rag,
            trained,
            RequestBuilder.seedFor(
                7, "compare", "ans-rag", "ans-trained", "quality", "all", "accuracy"));
    Row cmp =
        shuffled.read("score_comparisons").filter("subset = 'all' AND metric = 'accuracy'").head();
    assertThat(cmp.<Double>getAs("diff")).isEqualTo(paired.diff());
    assertThat(cmp.<Double>getAs("ci_low")).isEqualTo(paired.low());
    assertThat(cmp.<Double>getAs("ci_high")).isEqualTo(paired.high());
    assertThat(cmp.<Double>getAs("p_value")).isEqualTo(paired.pValue());
  }

  private static void runScore(Warehouse w, String... args) {
    List<String> score = new ArrayList<>(List.of("score", "--warehouse", w.root()));
    score.addAll(List.of(args));
    CliResult result = SparkTestSession.cli(score.toArray(String[]::new));
    assertThat(result.code()).as(result.toString()).isZero();
  }

  /** The (run_id, question_id) of the predictions as the job reads them, partition by partition. */
  private static List<List<String>> partitionsOfKeys(Warehouse w) {
    return w.read("predictions")
        .selectExpr("concat(run_id, ' ', question_id)")
        .as(Encoders.STRING())
        .javaRDD()
        .glom()
        .collect();
  }

  /** A table's rows in key order, without the score run that wrote them. */
  private static List<Row> withoutScoreRunId(Warehouse w, String table) {
    Contract contract = Contracts.load(table);
    return w.read(table)
        .drop("score_run_id")
        .orderBy(contract.primaryKey().stream().map(c -> col(c)).toArray(Column[]::new))
        .collectAsList();
  }

  @Test
  void withoutAJudgeNonNumericFreeAnswersAreQuarantinedAndCountsReconcile() {
    String warehouse = SparkTestSession.tempDir("score-nojudge").toString();
    Warehouse w = new Warehouse(SPARK, warehouse);
    write(
        w,
        "questions",
        List.of(
            question("financebench:f1", "financebench", "free", null, "(1,234)", null, List.of()),
            question("financebench:f3", "financebench", "free", null, "Yes.", null, List.of())));
    write(
        w,
        "predictions",
        List.of(
            prediction(
                "fb",
                "financebench:f1",
                "financebench",
                "rag",
                "generate",
                "-$1,234",
                null,
                null,
                null),
            prediction(
                "fb",
                "financebench:f3",
                "financebench",
                "rag",
                "generate",
                "yes",
                null,
                null,
                null)));
    CliResult result = SparkTestSession.cli("score", "--warehouse", warehouse);
    assertThat(result.code()).as(result.toString()).isZero();
    assertThat(score(w, "fb", "all", "accuracy").<Double>getAs("value")).isEqualTo(1.0);
    assertThat(
            w.read("quarantine")
                .filter("reason LIKE '%score.judge is auto with llm.backend extractive%'")
                .count())
        .isEqualTo(1);
    Row run = w.read("runs").filter("job = 'score'").head();
    assertThat(run.<Long>getAs("input_count")).isEqualTo(2);
    assertThat(run.<Long>getAs("output_count")).isEqualTo(1);
    assertThat(run.<Long>getAs("quarantined_count")).isEqualTo(1);
  }

  @Test
  void fitScalingRecoversTheLineAndWhereItCrossesRag() {
    String warehouse = SparkTestSession.tempDir("scaling").toString();
    Warehouse w = new Warehouse(SPARK, warehouse);
    List<Row> scores = new ArrayList<>();
    long[] tokens = {1_000, 10_000, 100_000, 1_000_000};
    for (int i = 0; i < tokens.length; i++) {
      scores.add(scoreRow("t" + i, "trained", 0.1 + 0.04 * Math.log(tokens[i]), tokens[i]));
    }
    scores.add(scoreRow("rag-1", "rag", 0.6, null));
    write(w, "scores", scores);
    CliResult result = SparkTestSession.cli("fit-scaling", "--warehouse", warehouse);
    assertThat(result.code()).as(result.toString()).isZero();
    Row fit = w.read("scaling_fits").head();
    assertThat(fit.<String>getAs("benchmark")).isEqualTo("quality");
    assertThat(fit.<Integer>getAs("n_points")).isEqualTo(4);
    assertThat(fit.<Double>getAs("slope")).isCloseTo(0.04, within(1e-9));
    assertThat(fit.<Double>getAs("intercept")).isCloseTo(0.1, within(1e-9));
    assertThat(fit.<Double>getAs("r2")).isCloseTo(1.0, within(1e-9));
    assertThat(fit.<Double>getAs("baseline_value")).isEqualTo(0.6);
    assertThat(fit.<Double>getAs("crossover_tokens"))
        .isCloseTo(Math.exp(12.5), within(Math.exp(12.5) * 1e-6));
    assertThat(fit.getList(fit.fieldIndex("points"))).hasSize(4);
    assertThat(fit.<String>getAs("token_count")).isEqualTo(FitScalingJob.WRITTEN);
    assertThat(result.out()).contains("trained before it was recorded");

    CliResult tooFew =
        SparkTestSession.cli("fit-scaling", "--warehouse", warehouse, "--runs", "t0,nope");
    assertThat(tooFew.code()).isEqualTo(2);
    assertThat(tooFew.err()).contains("score.scaling_runs: run nope has no accuracy score");
  }

  private static Row score(Warehouse w, String runId, String subset, String metric) {
    List<Row> rows =
        w.read("scores")
            .filter(
                "run_id = '"
                    + runId
                    + "' AND subset = '"
                    + subset
                    + "' AND metric = '"
                    + metric
                    + "'")
            .collectAsList();
    assertThat(rows).as(runId + " " + subset + " " + metric).hasSize(1);
    return rows.get(0);
  }

  private static Row question(
      String id,
      String benchmark,
      String type,
      List<String> options,
      String gold,
      Integer goldIndex,
      List<String> subsets) {
    return RowFactory.create(
        id,
        null,
        benchmark,
        "test",
        "Question " + id + "?",
        SparkRows.seq(options),
        gold,
        goldIndex,
        type,
        SparkRows.seq(subsets),
        SparkRows.map(Map.<String, String>of()));
  }

  private static Row prediction(
      String runId,
      String questionId,
      String benchmark,
      String setting,
      String mode,
      String answer,
      Boolean correct,
      List<Double> optionScores,
      Long syntheticTokens) {
    // As the predictions contract has them: retrieved chunks for the rag settings, a call key for
    // generate.
    boolean rag = setting.endsWith("rag");
    return RowFactory.create(
        runId,
        questionId,
        benchmark,
        setting,
        "djl",
        "tiny",
        mode,
        "mcq@1",
        answer,
        answer,
        correct,
        rag ? "hybrid" : null,
        rag ? SparkRows.seq(List.of("chunk-1")) : null,
        SparkRows.seq(optionScores),
        mode.equals("generate") ? "call-" + runId + "-" + questionId : null,
        syntheticTokens,
        // A trained model's unique and seen counts, their tokenizer and its generator.
        syntheticTokens == null ? null : syntheticTokens / 4,
        syntheticTokens == null ? null : syntheticTokens / 2,
        syntheticTokens == null ? null : "/models/llama/tokenizer.json",
        syntheticTokens == null ? null : "openai:gpt-4o-mini",
        "hash-" + runId,
        rag ? "default" : null);
  }

  private static Row scoreRow(String runId, String setting, double value, Long tokens) {
    return RowFactory.create(
        runId,
        "quality",
        "all",
        setting,
        "tiny",
        "accuracy",
        value,
        100L,
        value - 0.05,
        value + 0.05,
        tokens,
        // Scores of models trained before the unique and seen counts: fit-scaling falls back.
        null,
        null,
        null,
        null,
        "h",
        SparkRows.seq(List.of("quality-mcq@1")),
        "sha",
        "score-x");
  }

  private static void write(Warehouse w, String table, List<Row> rows) {
    Contract contract = Contracts.load(table);
    w.upsert(contract, SPARK.createDataFrame(rows, contract.schema()));
  }
}
