package dev.infuse.jobs.score;

import static org.apache.spark.sql.functions.array;
import static org.apache.spark.sql.functions.array_union;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.collect_list;
import static org.apache.spark.sql.functions.collect_set;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.explode;
import static org.apache.spark.sql.functions.first;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.sort_array;
import static org.apache.spark.sql.functions.struct;
import static org.apache.spark.sql.functions.udf;
import static org.apache.spark.sql.functions.when;

import dev.infuse.jobs.config.ConfigException;
import dev.infuse.jobs.contract.Contract;
import dev.infuse.jobs.contract.Contracts;
import dev.infuse.jobs.generate.PromptLibrary;
import dev.infuse.jobs.generate.RequestBuilder;
import dev.infuse.jobs.io.Quarantine;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.jobs.io.WriteResult;
import dev.infuse.jobs.llm.LlmCallRunner;
import dev.infuse.jobs.llm.LlmConfig;
import dev.infuse.jobs.llm.LlmFailures;
import dev.infuse.jobs.run.BuildInfo;
import dev.infuse.jobs.run.JobRun;
import dev.infuse.jobs.run.RunCounts;
import dev.infuse.jobs.spark.SparkRows;
import dev.infuse.udfs.llm.LlmBackend;
import dev.infuse.udfs.score.Bootstrap;
import dev.infuse.udfs.score.Interval;
import dev.infuse.udfs.score.JudgeVerdict;
import dev.infuse.udfs.score.PairedDifference;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.storage.StorageLevel;

/**
 * {@code score}: grades {@code predictions} against {@code questions} and writes {@code scores},
 * one row per run, benchmark, subset ({@code all} and each name in {@code questions.subsets}),
 * setting and metric, each with a seeded percentile bootstrap interval; with {@code score.compare =
 * [[a, b], ...]} it also writes the paired bootstrap comparison of each b against its a to {@code
 * score_comparisons}.
 *
 * <p>Grading: the answer job's {@code correct} when set; free answers (FinanceBench) by the numeric
 * tolerance, then, when either side is not a single number, by the LLM judge through {@link
 * LlmCallRunner} (so judgements are cached in {@code llm_calls} and never asked twice). {@code
 * acc_norm} is recomputed for loglikelihood runs from their option log-likelihoods. A prediction
 * that cannot be graded (no question, no gold, judge off or failed, unparseable verdict) goes to
 * quarantine with the reason, and read = graded + quarantined.
 *
 * <p>Rescoring a run replaces its rows in {@code scores}: the bootstrap seeds derive from ({@code
 * score.seed}, the row's key), so a rerun with the same inputs writes the same numbers (only {@code
 * score_run_id} changes); scores of a rescored run that no longer apply (a subset that is gone) are
 * deleted.
 */
public final class ScoreJob {
  public static final String NAME = "score";
  public static final String ACCURACY = "accuracy";
  public static final String ACC_NORM = "acc_norm";

  /**
   * Correct / parsed: accuracy over the predictions whose answer parsed (predictions.parsed_answer
   * not null), EntiGraph's {@code overall_accuracy} ({@code _attempts_stats}). No row where nothing
   * parsed (EntiGraph: NaN).
   */
  public static final String ACCURACY_ATTEMPTED = "accuracy_attempted";

  /** Parsed / all: the share of predictions whose answer parsed (EntiGraph's attempt rate). */
  public static final String PARSE_RATE = "parse_rate";

  public static final String ALL = "all";

  static final StructType METRIC_VALUE =
      new StructType()
          .add("metric", DataTypes.StringType, false)
          .add("value", DataTypes.DoubleType, false);

  private final JobRun run;
  private final ScoreConfig options;
  private final Bootstrap bootstrap;
  private final long seed;

  public ScoreJob(JobRun run) {
    this.run = run;
    this.options = run.config().section(ScoreConfig.class);
    this.bootstrap = new Bootstrap(options.bootstrapResamples(), options.confidence());
    this.seed = options.seedOr(run.config().run().seed());
  }

  public RunCounts run() {
    Map<String, Long> sideDetails = new LinkedHashMap<>();
    long sideRows = 0;
    if (!options.discussions().isEmpty()) {
      DiscussionScores discussions = new DiscussionScores(run);
      DiscussionScores.Written written =
          discussions.score(discussions.resolve(options.discussions()), run.runId());
      sideDetails.put("discussion_scores.rows", (long) written.rows());
      sideDetails.put("discussion_scores.inserted", written.write().inserted());
      sideRows += written.rolloutRows();
    }
    if (!options.behaviorRuns().isEmpty()) {
      long predictions = scoreBehavior(sideDetails);
      sideRows += predictions;
    }
    if (options.runs().isEmpty()
        && (!options.discussions().isEmpty() || !options.behaviorRuns().isEmpty())) {
      return new RunCounts(sideRows, sideRows, 0, sideDetails);
    }
    SparkSession spark = run.spark();
    Warehouse warehouse = run.warehouse();
    if (!warehouse.exists("predictions")) {
      throw new ConfigException(
          List.of(
              "predictions: no such table in "
                  + warehouse.root()
                  + ", expected an answer run first (infuse answer)"));
    }
    Dataset<Row> predictions = warehouse.read("predictions");
    // One job tells which runs there are and how many predictions each has (read, below).
    Map<String, Long> perRun = new TreeMap<>();
    for (Row r : predictions.groupBy("run_id").count().collectAsList()) {
      perRun.put(r.getString(0), r.getLong(1));
    }
    List<String> runs = runsToScore(List.copyOf(perRun.keySet()));
    predictions = predictions.filter(col("run_id").isin(runs.toArray()));
    EntigraphTest entigraph = EntigraphTest.of(warehouse);
    Dataset<Row> joined = join(predictions, entigraph.addSubset(warehouse.read("questions")));

    Dataset<Row> first =
        spark
            .createDataFrame(
                joined.javaRDD().mapPartitions(new GradeRows(options.numericTolerance())),
                GradeRows.SCHEMA)
            .persist(StorageLevel.MEMORY_AND_DISK());
    // What the grader decided alone; when no row needs the judge, these are the final statuses.
    List<Row> firstStatuses = first.groupBy("status", "grader").count().collectAsList();
    long needJudge =
        firstStatuses.stream()
            .filter(r -> GradeRows.JUDGE.equals(r.getString(0)))
            .mapToLong(r -> r.getLong(2))
            .sum();
    Judged judged = judge(first.filter(col("status").equalTo(GradeRows.JUDGE)), needJudge);
    Dataset<Row> graded =
        first
            .filter(col("status").notEqual(GradeRows.JUDGE))
            .unionByName(
                judged
                    .rows()
                    .select(GradeRows.SCHEMA.fieldNames()[0], rest(GradeRows.SCHEMA.fieldNames())))
            .persist(StorageLevel.MEMORY_AND_DISK());
    Map<String, Long> details = new LinkedHashMap<>();
    if (judged.outcome() != null) {
      details.putAll(LlmCallRunner.details(judged.outcome()));
    }
    details.put("judge.requested", judged.requested());
    details.putAll(entigraph.details());
    try {
      Map<String, Long> byStatus = new HashMap<>();
      List<Row> statuses =
          needJudge == 0
              ? firstStatuses
              : graded.groupBy("status", "grader").count().collectAsList();
      for (Row r : statuses) {
        String key =
            GradeRows.GRADED.equals(r.getString(0)) ? "graded.by_" + r.getString(1) : "quarantined";
        byStatus.merge(key, r.getLong(2), Long::sum);
      }
      first.unpersist();
      if (judged.calls() != null) {
        judged.calls().unpersist();
      }
      long read = runs.stream().mapToLong(perRun::get).sum();
      long rejected = byStatus.getOrDefault("quarantined", 0L);
      Dataset<Row> metricRows =
          metricRows(graded.filter(col("status").equalTo(GradeRows.GRADED)))
              .persist(StorageLevel.MEMORY_AND_DISK());
      List<Row> scoreRows = scoreRows(metricRows, judged.promptVersion(), gitShas(warehouse, runs));
      WriteResult write = writeScores(scoreRows);
      List<Row> comparisonRows = comparisons(metricRows);
      WriteResult quarantine =
          run.quarantine(
              Quarantine.deadLetters(
                  graded.filter(col("status").equalTo(GradeRows.REJECTED)),
                  lit("predictions"),
                  concat(lit("run_id="), col("run_id"), lit(", question_id="), col("question_id")),
                  col("answer"),
                  col("reason")),
              rejected);
      metricRows.unpersist();

      long gradedCount = read - rejected;
      details.put("predictions", read);
      byStatus.forEach(
          (k, v) -> {
            if (!"quarantined".equals(k)) {
              details.put(k, v);
            }
          });
      details.put("scores.rows", (long) scoreRows.size());
      details.put("scores.inserted", write.inserted());
      details.put("scores.updated", write.updated());
      details.put("scores.deleted", write.deleted());
      details.put("score_comparisons.rows", (long) comparisonRows.size());
      details.put("quarantine.inserted", quarantine.inserted());
      RunCounts counts = new RunCounts(read, gradedCount, rejected, details);
      print(scoreRows, comparisonRows, read, gradedCount, rejected, write, judged.outcome());
      entigraph.print(run.out());
      return LlmFailures.check(
          NAME,
          "judge calls",
          judged.outcome(),
          run.config().section(LlmConfig.class).maxFailureFraction(),
          counts);
    } finally {
      graded.unpersist();
    }
  }

  /**
   * The judge's part of grading: the free answers that are not one number each.
   *
   * @param rows the same rows, graded by the judge or rejected with why not
   * @param requested how many rows needed the judge
   * @param outcome what the LLM layer did; null when no call was made
   * @param promptVersion the rubric's {@code id@version}; null when it was not asked
   * @param calls the requests, persisted until the grades are counted; null when none
   */
  private record Judged(
      Dataset<Row> rows,
      long requested,
      LlmCallRunner.Outcome outcome,
      String promptVersion,
      Dataset<Row> calls) {}

  /**
   * Sends the rows that need it ({@code requested} of them, counted by the caller) to the LLM judge
   * through the call cache, or, when the judge is off for this backend, rejects them with the key
   * to change.
   */
  private Judged judge(Dataset<Row> needJudge, long requested) {
    if (requested == 0) {
      return new Judged(needJudge, 0, null, null, null);
    }
    LlmBackend backend = run.config().section(LlmConfig.class).client().backend();
    if (!options.judgeWith(backend)) {
      Dataset<Row> rejected =
          needJudge
              .withColumn("status", lit(GradeRows.REJECTED))
              .withColumn(
                  "reason",
                  lit(
                      "free answer: gold or answer is not a single number and score.judge is "
                          + options.judge()
                          + " with llm.backend "
                          + backend
                          + ", expected score.judge=on (or auto) with a backend that can judge"));
      return new Judged(rejected, requested, null, null, null);
    }
    SparkSession spark = run.spark();
    JudgeRequests requests =
        new JudgeRequests(
            run.config(),
            PromptLibrary.load(
                    spark.sparkContext().hadoopConfiguration(), run.config().run().promptsDir())
                .get(JudgeVerdict.PROMPT_ID));
    LlmCallRunner runner = new LlmCallRunner(run);
    Dataset<Row> calls =
        judgeRequests(spark, needJudge, requests).persist(StorageLevel.MEMORY_AND_DISK());
    LlmCallRunner.Outcome outcome = runner.call(calls);
    return new Judged(
        applyVerdicts(needJudge, runner.responses(calls)),
        requested,
        outcome,
        requests.promptVersion(),
        calls);
  }

  /**
   * The behaviour metrics of score.behavior_runs into behavior_scores, printed per run; returns the
   * behaviour predictions read.
   */
  private long scoreBehavior(Map<String, Long> details) {
    BehaviorScores behavior = new BehaviorScores(run);
    List<String> runIds = behavior.resolve(options.behaviorRuns(), "score.behavior_runs");
    Map<String, List<BehaviorScores.Answered>> answered = behavior.answered(runIds);
    java.util.Set<String> hard = behavior.hardTasks();
    Map<String, Row> heads = behavior.heads(runIds);
    List<Row> rows = new ArrayList<>();
    long read = 0;
    for (String runId : runIds) {
      List<BehaviorScores.Answered> tasks = answered.getOrDefault(runId, List.of());
      if (tasks.isEmpty()) {
        throw new IllegalArgumentException(
            "score.behavior_runs: run "
                + runId
                + " has no predictions on tasks of behavior_tasks, expected a behaviour answer run");
      }
      read += tasks.size();
      Row head = heads.get(runId);
      List<Row> runRows =
          behavior.rows(runId, tasks, hard, head.getString(1), head.getString(2), run.runId());
      rows.addAll(runRows);
      printBehavior(runId, tasks.size(), runRows);
    }
    WriteResult write = behavior.write(rows);
    details.put("behavior_scores.rows", (long) rows.size());
    details.put("behavior_scores.inserted", write.inserted());
    details.put("behavior_scores.updated", write.updated());
    return read;
  }

  /** The headline behaviour metrics of one run, one line. */
  private void printBehavior(String runId, int tasks, List<Row> rows) {
    List<String> headline =
        List.of(
            "types/macro_f1",
            "categories/macro_f1",
            "restraint_tasks/over_proactivity",
            "proactive_tasks/under_proactivity",
            "correct_flags/content_accuracy",
            "medec/medec_error_flag_accuracy",
            "medec/medec_error_sentence_accuracy",
            "medec/medec_correction_rouge1_f",
            "hard/types/macro_f1");
    Map<String, Double> values = new LinkedHashMap<>();
    for (Row row : rows) {
      values.put(row.getString(1) + "/" + row.getString(2), row.getDouble(3));
    }
    StringBuilder line = new StringBuilder();
    for (String name : headline) {
      if (values.containsKey(name)) {
        line.append(line.length() == 0 ? "" : ", ")
            .append(String.format(Locale.ROOT, "%s %.3f", name, values.get(name)));
      }
    }
    run.out().printf(Locale.ROOT, "  behaviour run %s (%d tasks): %s%n", runId, tasks, line);
  }

  /** Replaces the scored runs' rows of {@code scores}. */
  private WriteResult writeScores(List<Row> scoreRows) {
    if (scoreRows.isEmpty()) {
      return WriteResult.unchanged("scores");
    }
    Contract contract = Contracts.load("scores");
    return run.warehouse()
        .replaceWithin(
            contract, run.spark().createDataFrame(scoreRows, contract.schema()), "run_id");
  }

  /** The paired comparisons of {@code score.compare}, written to {@code score_comparisons}. */
  private List<Row> comparisons(Dataset<Row> metricRows) {
    if (options.compare().isEmpty()) {
      return List.of();
    }
    List<Row> rows = new ArrayList<>();
    for (List<String> pair : options.compare()) {
      rows.addAll(comparisonRows(metricRows, pair.get(0), pair.get(1)));
    }
    Contract contract = Contracts.load("score_comparisons");
    run.warehouse().upsert(contract, run.spark().createDataFrame(rows, contract.schema()));
    return rows;
  }

  private static String[] rest(String[] names) {
    return java.util.Arrays.copyOfRange(names, 1, names.length);
  }

  /**
   * score.runs (and both score.compare runs), checked against the runs that have predictions
   * ({@code present}, sorted); all of those when none is named.
   */
  private List<String> runsToScore(List<String> present) {
    Set<String> wanted = new LinkedHashSet<>(options.runs());
    if (!wanted.isEmpty()) {
      options.compare().forEach(wanted::addAll);
    }
    List<String> problems = new ArrayList<>();
    for (String id : wanted) {
      if (!present.contains(id)) {
        problems.add("score.runs: run " + id + " has no predictions, expected one of " + present);
      }
    }
    for (String id : options.compare().stream().flatMap(List::stream).distinct().toList()) {
      if (!present.contains(id)) {
        problems.add(
            "score.compare: run " + id + " has no predictions, expected one of " + present);
      }
    }
    if (!problems.isEmpty()) {
      throw new ConfigException(problems);
    }
    return wanted.isEmpty() ? present : List.copyOf(wanted);
  }

  /** Predictions with their question's fields, and whether the question exists. */
  static Dataset<Row> join(Dataset<Row> predictions, Dataset<Row> questions) {
    Dataset<Row> q =
        questions.select(
            col("question_id").as("q_id"),
            col("question"),
            col("options"),
            col("gold"),
            col("gold_index"),
            col("answer_type"),
            col("subsets"));
    // Predictions written before the synthetic-token counts and generator existed read as null.
    for (String column : GradeRows.TRAINED_ON) {
      if (!java.util.Arrays.asList(predictions.columns()).contains(column)) {
        predictions =
            predictions.withColumn(
                column, lit(null).cast(GradeRows.SCHEMA.apply(column).dataType()));
      }
    }
    return predictions
        .join(q, predictions.col("question_id").equalTo(q.col("q_id")), "left")
        .withColumn("question_found", col("q_id").isNotNull())
        .select(GradeRows.INPUT.stream().map(c -> col(c)).toArray(Column[]::new));
  }

  private static Dataset<Row> judgeRequests(
      SparkSession spark, Dataset<Row> needJudge, JudgeRequests requests) {
    StructType schema =
        new StructType()
            .add("run_id", DataTypes.StringType, false)
            .add("question_id", DataTypes.StringType, false)
            .add("call_key", DataTypes.StringType, false)
            .add("chat_request", DataTypes.StringType, false)
            .add("canonical_request", DataTypes.StringType, false);
    return spark.createDataFrame(
        needJudge
            .select("run_id", "question_id", "question", "gold", "answer")
            .javaRDD()
            .map(
                r -> {
                  String[] built =
                      requests.build(
                          r.getString(1), r.getString(2), r.getString(3), r.getString(4));
                  return RowFactory.create(
                      r.getString(0), r.getString(1), built[0], built[1], built[2]);
                }),
        schema);
  }

  /** The judge's verdicts on {@code needJudge}: graded by the judge, or rejected with why not. */
  static Dataset<Row> applyVerdicts(Dataset<Row> needJudge, Dataset<Row> responses) {
    UserDefinedFunction verdict =
        udf(
            (UDF1<String, Boolean>) text -> JudgeVerdict.parse(text).correct(),
            DataTypes.BooleanType);
    UserDefinedFunction problem =
        udf(
            (UDF1<String, String>) text -> JudgeVerdict.parse(text).problem(),
            DataTypes.StringType);
    Dataset<Row> r =
        responses.select(
            col("run_id").as("r_run"),
            col("question_id").as("r_question"),
            col("status").as("call_status"),
            col("response_text"),
            col("error").as("call_error"),
            col("call_key"));
    Column ok = col("call_status").equalTo("succeeded");
    Dataset<Row> joined =
        needJudge
            .join(
                r,
                needJudge
                    .col("run_id")
                    .equalTo(r.col("r_run"))
                    .and(needJudge.col("question_id").equalTo(r.col("r_question"))),
                "left")
            .withColumn("verdict", when(ok, verdict.apply(col("response_text"))));
    return joined
        .withColumn(
            "status",
            when(col("verdict").isNotNull(), lit(GradeRows.GRADED))
                .otherwise(lit(GradeRows.REJECTED)))
        .withColumn("correct", col("verdict"))
        .withColumn("grader", when(col("verdict").isNotNull(), lit(GradeRows.BY_JUDGE)))
        .withColumn(
            "reason",
            when(
                    col("call_status").isNull(),
                    lit(
                        "judge call not made: deferred by llm.max_total_tokens; it is made on the next run"))
                .when(
                    ok.and(col("verdict").isNull()),
                    concat(
                        lit("call "),
                        col("call_key"),
                        lit(": "),
                        problem.apply(col("response_text"))))
                .when(
                    col("verdict").isNull(),
                    concat(
                        lit("judge call "),
                        col("call_key"),
                        lit(" failed (retried on the next run): "),
                        col("call_error"))))
        .select(GradeRows.SCHEMA.fieldNames()[0], rest(GradeRows.SCHEMA.fieldNames()));
  }

  /**
   * One row per graded prediction, metric and subset, under {@code all} and each of the question's
   * subsets: {@code accuracy} and {@code parse_rate} as 0/1 for every prediction, {@code
   * accuracy_attempted} (0/1) for those whose answer parsed, and {@code acc_norm} where it was
   * computed. The mean of each is the score: correct / all, parsed / all, correct / parsed.
   */
  static Dataset<Row> metricRows(Dataset<Row> graded) {
    Column correct = when(col("correct"), 1.0).otherwise(0.0);
    Column accuracy = struct(lit(ACCURACY).as("metric"), correct.as("value"));
    Column parseRate =
        struct(lit(PARSE_RATE).as("metric"), when(col("parsed"), 1.0).otherwise(0.0).as("value"));
    Column attempted = struct(lit(ACCURACY_ATTEMPTED).as("metric"), correct.as("value"));
    Column accNorm =
        struct(lit(ACC_NORM).as("metric"), when(col("acc_norm"), 1.0).otherwise(0.0).as("value"));
    return graded
        .withColumn(
            "m",
            explode(
                array(
                    accuracy,
                    parseRate,
                    when(col("parsed"), attempted),
                    when(col("acc_norm").isNotNull(), accNorm))))
        .filter(col("m").isNotNull())
        .withColumn("subset", explode(array_union(array(lit(ALL)), col("subsets"))))
        .select(
            col("run_id"),
            col("question_id"),
            col("benchmark"),
            col("subset"),
            col("setting"),
            col("model"),
            col("m.metric").as("metric"),
            col("m.value").as("value"),
            col("synthetic_tokens"),
            col("unique_synthetic_tokens"),
            col("seen_synthetic_tokens"),
            col("count_tokenizer"),
            col("generator"),
            col("config_hash"),
            col("prompt_version"),
            col("grader"));
  }

  /**
   * The scores rows: per (run, benchmark, subset, setting, metric), the mean and its bootstrap
   * interval.
   */
  private List<Row> scoreRows(
      Dataset<Row> metricRows, String judgeVersion, Map<String, String> shas) {
    List<String> groupKeys = List.of("run_id", "benchmark", "subset", "setting", "metric");
    List<Row> groups =
        metricRows
            .groupBy(groupKeys.stream().map(k -> col(k)).toArray(Column[]::new))
            .agg(
                first("model").as("model"),
                max("synthetic_tokens").as("synthetic_tokens"),
                max("unique_synthetic_tokens").as("unique_synthetic_tokens"),
                max("seen_synthetic_tokens").as("seen_synthetic_tokens"),
                max("count_tokenizer").as("count_tokenizer"),
                max("generator").as("generator"),
                sort_array(collect_set("config_hash")).as("config_hashes"),
                sort_array(collect_set("prompt_version")).as("prompt_versions"),
                max(col("grader").equalTo(GradeRows.BY_JUDGE)).as("judged"),
                sort_array(collect_list(struct(col("question_id"), col("value")))).as("values"))
            .collectAsList();
    // Sorted here rather than by orderBy, which would add a Spark job to sample the sort's ranges;
    // nulls first, as orderBy puts them.
    Comparator<Row> byGroup =
        groupKeys.stream()
            .map(
                key ->
                    Comparator.comparing(
                        (Row g) -> g.<String>getAs(key),
                        Comparator.nullsFirst(Comparator.<String>naturalOrder())))
            .reduce(Comparator::thenComparing)
            .orElseThrow();
    groups = groups.stream().sorted(byGroup).toList();
    List<Row> rows = new ArrayList<>(groups.size());
    for (Row g : groups) {
      String runId = g.getAs("run_id");
      String benchmark = g.getAs("benchmark");
      String subset = g.getAs("subset");
      String metric = g.getAs("metric");
      List<Row> values = g.getList(g.fieldIndex("values"));
      double[] sample = values.stream().mapToDouble(v -> v.getDouble(1)).toArray();
      Interval interval =
          bootstrap.mean(
              sample, RequestBuilder.seedFor(seed, "score", runId, benchmark, subset, metric));
      List<String> prompts = new ArrayList<>(g.getList(g.fieldIndex("prompt_versions")));
      if (judgeVersion != null && Boolean.TRUE.equals(g.getAs("judged"))) {
        prompts.add(judgeVersion);
        prompts.sort(String::compareTo);
      }
      List<String> hashes = g.getList(g.fieldIndex("config_hashes"));
      rows.add(
          RowFactory.create(
              runId,
              benchmark,
              subset,
              g.getAs("setting"),
              g.getAs("model"),
              metric,
              interval.value(),
              interval.n(),
              interval.low(),
              interval.high(),
              g.getAs("synthetic_tokens"),
              g.getAs("unique_synthetic_tokens"),
              g.getAs("seen_synthetic_tokens"),
              g.getAs("count_tokenizer"),
              g.getAs("generator"),
              String.join(",", hashes),
              SparkRows.seq(prompts),
              shas.getOrDefault(runId, BuildInfo.gitSha()),
              run.runId()));
    }
    return rows;
  }

  /**
   * The paired bootstrap of b against a on every benchmark, subset and metric they share questions
   * in.
   */
  private List<Row> comparisonRows(Dataset<Row> metricRows, String a, String b) {
    Dataset<Row> left =
        metricRows
            .filter(col("run_id").equalTo(a))
            .select(
                col("question_id"),
                col("benchmark"),
                col("subset"),
                col("metric"),
                col("setting").as("setting_a"),
                col("value").as("value_a"));
    Dataset<Row> right =
        metricRows
            .filter(col("run_id").equalTo(b))
            .select(
                col("question_id"),
                col("benchmark"),
                col("subset"),
                col("metric"),
                col("setting").as("setting_b"),
                col("value").as("value_b"));
    List<Row> groups =
        left.join(right, SparkRows.seq(List.of("question_id", "benchmark", "subset", "metric")))
            .groupBy("benchmark", "subset", "metric")
            .agg(
                first("setting_a").as("setting_a"),
                first("setting_b").as("setting_b"),
                sort_array(collect_list(struct(col("question_id"), col("value_a"), col("value_b"))))
                    .as("pairs"))
            .orderBy("benchmark", "subset", "metric")
            .collectAsList();
    if (groups.isEmpty()) {
      throw new ConfigException(
          List.of(
              "score.compare: runs "
                  + a
                  + " and "
                  + b
                  + " have no graded question in common, expected two runs over the same questions"));
    }
    List<Row> rows = new ArrayList<>(groups.size());
    for (Row g : groups) {
      List<Row> pairs = g.getList(g.fieldIndex("pairs"));
      double[] va = pairs.stream().mapToDouble(p -> p.getDouble(1)).toArray();
      double[] vb = pairs.stream().mapToDouble(p -> p.getDouble(2)).toArray();
      String benchmark = g.getAs("benchmark");
      String subset = g.getAs("subset");
      String metric = g.getAs("metric");
      PairedDifference d =
          bootstrap.paired(
              va, vb, RequestBuilder.seedFor(seed, "compare", a, b, benchmark, subset, metric));
      rows.add(
          RowFactory.create(
              a,
              b,
              benchmark,
              subset,
              g.getAs("setting_a"),
              g.getAs("setting_b"),
              metric,
              d.n(),
              d.valueA(),
              d.valueB(),
              d.diff(),
              d.low(),
              d.high(),
              d.pValue(),
              run.runId()));
    }
    return rows;
  }

  /** runs.git_sha of each answer run that runs records. */
  private static Map<String, String> gitShas(Warehouse warehouse, List<String> runs) {
    Map<String, String> shas = new HashMap<>();
    if (!warehouse.exists("runs")) {
      return shas;
    }
    for (Row r :
        warehouse
            .read("runs")
            .filter(col("run_id").isin(runs.toArray()))
            .select("run_id", "git_sha")
            .collectAsList()) {
      shas.put(r.getString(0), r.getString(1));
    }
    return shas;
  }

  private void print(
      List<Row> scoreRows,
      List<Row> comparisonRows,
      long read,
      long graded,
      long rejected,
      WriteResult write,
      LlmCallRunner.Outcome outcome) {
    var out = run.out();
    out.printf(
        Locale.ROOT,
        "score: %d prediction(s), %d graded, %d quarantined; %d score row(s), %d%% CIs from %d resamples%n",
        read,
        graded,
        rejected,
        scoreRows.size(),
        Math.round(options.confidence() * 100),
        options.bootstrapResamples());
    if (outcome != null) {
      out.printf(
          Locale.ROOT,
          "  judge %s: %d request(s), %d cached, %d called, %d failed%n",
          run.config().section(LlmConfig.class).client().backend(),
          outcome.requested(),
          outcome.cached(),
          outcome.called(),
          outcome.failed());
    }
    for (Row r : scoreRows) {
      if (ALL.equals(r.getString(2))) {
        out.printf(
            Locale.ROOT,
            "  %s %s %s %s: %.4f [%.4f, %.4f] n=%d%n",
            r.getString(0),
            r.getString(1),
            r.getString(3),
            r.getString(5),
            r.getDouble(6),
            r.getDouble(8),
            r.getDouble(9),
            r.getLong(7));
      }
    }
    for (Row r : comparisonRows) {
      if (ALL.equals(r.getString(3))) {
        out.printf(
            Locale.ROOT,
            "  %s (%s) - %s (%s) %s %s: %+.4f [%.4f, %.4f] p=%.4f n=%d%n",
            r.getString(1),
            r.getString(5),
            r.getString(0),
            r.getString(4),
            r.getString(2),
            r.getString(6),
            r.getDouble(10),
            r.getDouble(11),
            r.getDouble(12),
            r.getDouble(13),
            r.getLong(7));
      }
    }
    out.println("  " + write);
    out.flush();
  }
}
