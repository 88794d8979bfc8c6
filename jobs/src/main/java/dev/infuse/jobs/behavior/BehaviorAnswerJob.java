package dev.infuse.jobs.behavior;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.udf;
import static org.apache.spark.sql.functions.when;

import dev.infuse.jobs.config.ConfigJson;
import dev.infuse.jobs.contract.Contract;
import dev.infuse.jobs.contract.Contracts;
import dev.infuse.jobs.generate.PromptLibrary;
import dev.infuse.jobs.generate.RequestBuilder;
import dev.infuse.jobs.io.Quarantine;
import dev.infuse.jobs.io.WriteResult;
import dev.infuse.jobs.llm.LlmCallRunner;
import dev.infuse.jobs.llm.LlmConfig;
import dev.infuse.jobs.run.JobRun;
import dev.infuse.jobs.run.RunCounts;
import dev.infuse.udfs.behavior.BehaviorTask;
import dev.infuse.udfs.behavior.score.BehaviorPrompts;
import dev.infuse.udfs.behavior.score.Classification;
import dev.infuse.udfs.behavior.score.JudgeBehaviorClassifier;
import dev.infuse.udfs.generate.GenerationTask;
import dev.infuse.udfs.llm.LlmBackend;
import dev.infuse.udfs.llm.LlmSettings;
import dev.infuse.udfs.prompt.PromptTemplate;
import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.api.java.function.MapFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.storage.StorageLevel;

/**
 * {@code answer --mode behavior}: the model acts as a clinical assistant in each task's context
 * (the {@code behavior-assistant} prompt), through the LLM client layer, so calls are cached,
 * resumable and budgeted. The behaviour a response exhibited is read from its leading behavioural
 * token, else by {@code behavior.classifier} (rule, or the LLM judge); its content is checked
 * against the gold target. Writes {@code behavior_predictions}; a task whose call failed goes to
 * quarantine with the error, so read = predicted + quarantined, and a rerun calls it again.
 */
public final class BehaviorAnswerJob {
  public static final String PROMPT = "behavior-assistant";
  public static final String JUDGE_PROMPT = "behavior-judge";

  private final JobRun run;
  private final BehaviorConfig options;

  public BehaviorAnswerJob(JobRun run) {
    this.run = run;
    this.options = run.config().section(BehaviorConfig.class);
  }

  public RunCounts run() {
    String table = options.tasksTable();
    if (!run.warehouse().exists(table)) {
      throw new IllegalArgumentException(
          "behavior.tasks_table: got "
              + table
              + ", which does not exist in the warehouse; expected `infuse build-behavior-tasks`"
              + (table.equals(BehaviorConfig.HARD_TASKS) ? " and `infuse mine-hard`" : "")
              + " first");
    }
    LlmConfig llm = run.config().section(LlmConfig.class);
    boolean judging = "judge".equals(options.classifier());
    if (judging && options.judge().client(llm).backend() == LlmBackend.EXTRACTIVE) {
      // The extractive backend has no judge; failing here beats answering every task first.
      throw new IllegalArgumentException(
          "behavior.classifier: got judge with the extractive backend as judge, expected"
              + " behavior.judge.backend and behavior.judge.model naming a model (or llm.backend"
              + " one), or behavior.classifier=rule");
    }
    PromptLibrary prompts =
        PromptLibrary.load(
            run.spark().sparkContext().hadoopConfiguration(), run.config().run().promptsDir());
    PromptTemplate template = prompts.get(PROMPT);
    String promptVersion = template.id() + "@" + template.version();
    RequestBuilder builder = new RequestBuilder(run.config(), template);
    Dataset<Row> tasks = run.warehouse().read(table);
    Dataset<Row> requests =
        tasks
            .map(new BuildRequest(builder), Encoders.row(BuildRequest.OUTPUT))
            .persist(StorageLevel.MEMORY_AND_DISK());
    try {
      LlmCallRunner runner = new LlmCallRunner(run);
      LlmCallRunner.Outcome outcome = runner.call(requests);
      Dataset<Row> responses = runner.responses(requests);
      Dataset<Row> ok = responses.filter(col("status").equalTo("succeeded"));
      Dataset<Row> failed =
          responses.filter(col("status").isNull().or(col("status").notEqual("succeeded")));
      String judgeName = null;
      Dataset<Row> withJudge = ok.withColumn("judged", lit(null).cast("string"));
      Dataset<Row> judgeFailed = null;
      if (judging) {
        Judged judged = judge(ok, prompts.get(JUDGE_PROMPT), llm);
        // A response whose judge call failed is not read by the rule instead: that would record
        // the rule's reading under a judge run. It goes to quarantine, and a rerun judges it.
        withJudge = judged.rows().filter(col("judge_status").equalTo("succeeded"));
        judgeFailed = judged.rows().filter(col("judge_status").notEqual("succeeded"));
        judgeName = judged.name();
        outcome = outcome.plus(judged.outcome());
      }
      Dataset<Row> read =
          run.spark()
              .createDataFrame(
                  withJudge
                      .select(
                          "task_id",
                          "category",
                          "source",
                          "gold_behavior",
                          "gold_target",
                          "response_text",
                          "call_key",
                          "judged")
                      .withColumnRenamed("response_text", "response")
                      .javaRDD()
                      .mapPartitions(new BehaviorReading(options.tokens(), judgeName)),
                  BehaviorReading.OUTPUT);
      Contract contract = Contracts.load("behavior_predictions");
      Dataset<Row> rows =
          withJudge
              .join(read, "task_id")
              .select(
                  lit(run.runId()).as("run_id"),
                  col("task_id"),
                  lit(table).as("tasks_table"),
                  col("category"),
                  col("source"),
                  col("gold_behavior"),
                  col("predicted_behavior"),
                  col("classified_by"),
                  col("content_correct"),
                  col("response_text").as("response"),
                  col("call_key"),
                  lit(llm.client().backend().id()).as("backend"),
                  lit(llm.client().model()).as("model"),
                  lit(promptVersion).as("prompt_version"),
                  lit(ConfigJson.hash(run.config())).as("config_hash"))
              .persist(StorageLevel.MEMORY_AND_DISK());
      try {
        long read_ = requests.count();
        long written = rows.count();
        Dataset<Row> deadLetters =
            Quarantine.deadLetters(
                failed,
                lit(table),
                col("task_id"),
                col("call_key"),
                concat(
                    lit("task "),
                    col("task_id"),
                    lit(": the LLM call failed ("),
                    coalesce(col("error"), lit("no response")),
                    lit("); a rerun calls it again")));
        if (judgeFailed != null) {
          deadLetters =
              deadLetters.unionByName(
                  Quarantine.deadLetters(
                      judgeFailed,
                      lit(table),
                      col("task_id"),
                      col("judge_call_key"),
                      concat(
                          lit("task "),
                          col("task_id"),
                          lit(": the judge's call failed ("),
                          coalesce(col("judge_error"), lit("no response")),
                          lit("); a rerun judges it again (the answer is cached)"))));
        }
        long quarantined = failed.count() + (judgeFailed == null ? 0 : judgeFailed.count());
        WriteResult write = run.warehouse().upsert(contract, rows);
        run.quarantine(deadLetters, quarantined);
        printSummary(rows, read_, written, quarantined, outcome, promptVersion);
        Map<String, Long> details = new LinkedHashMap<>(LlmCallRunner.details(outcome));
        if (judging) {
          long unreadable = rows.filter(col("classified_by").startsWith("rule")).count();
          details.put("judge.unreadable", unreadable);
          if (unreadable > 0) {
            run.out()
                .printf(
                    Locale.ROOT,
                    "  judge: %d repl(ies) named no behaviour; those responses were read by the"
                        + " rule classifier (classified_by says which)%n",
                    unreadable);
          }
        }
        details.put("behavior_predictions.inserted", write.inserted());
        details.put("behavior_predictions.updated", write.updated());
        return new RunCounts(read_, written, quarantined, details);
      } finally {
        rows.unpersist();
      }
    } finally {
      requests.unpersist();
    }
  }

  private void printSummary(
      Dataset<Row> rows,
      long read,
      long written,
      long quarantined,
      LlmCallRunner.Outcome outcome,
      String promptVersion) {
    run.out()
        .printf(
            Locale.ROOT,
            "answer (behavior): %d task(s) of %s: %d answered, %d quarantined; prompt %s%n",
            read,
            options.tasksTable(),
            written,
            quarantined,
            promptVersion);
    run.out()
        .printf(
            Locale.ROOT,
            "  llm: %d request(s), %d cached, %d called, %d failed%n",
            outcome.requested(),
            outcome.cached(),
            outcome.called(),
            outcome.failed());
    for (Row row :
        rows.groupBy("gold_behavior", "predicted_behavior")
            .count()
            .orderBy("gold_behavior", "predicted_behavior")
            .collectAsList()) {
      run.out()
          .printf(
              Locale.ROOT,
              "  gold %-9s -> predicted %-9s %6d%n",
              row.getString(0),
              row.getString(1),
              row.getLong(2));
    }
  }

  /** The judge's readings of the responses, and what its calls did. */
  private record Judged(Dataset<Row> rows, String name, LlmCallRunner.Outcome outcome) {}

  /**
   * Asks the LLM judge which behaviour each response shows (behavior.classifier judge), through the
   * call cache. A response that starts with a behavioural token is read from the token anyway;
   * judging every response keeps the judge's requests independent of the token set.
   */
  private Judged judge(Dataset<Row> ok, PromptTemplate judgeTemplate, LlmConfig llm) {
    LlmSettings client = options.judge().client(llm);
    // Greedy, whatever llm.temperature says: a verdict is a reading, not a sample.
    RequestBuilder judge =
        new RequestBuilder(
            client,
            options.judge().maxTokens(),
            0.0,
            1.0,
            run.config().run().seed(),
            judgeTemplate);
    Dataset<Row> requests =
        ok.select("task_id", "context_text", "response_text")
            .map(new BuildJudgeRequest(judge), Encoders.row(BuildJudgeRequest.OUTPUT))
            .persist(StorageLevel.MEMORY_AND_DISK());
    LlmCallRunner runner = new LlmCallRunner(run, llm.withClient(client));
    LlmCallRunner.Outcome outcome = runner.call(requests);
    UserDefinedFunction verdict =
        udf((UDF1<String, String>) BehaviorAnswerJob::judgedBehavior, DataTypes.StringType);
    Dataset<Row> verdicts =
        runner
            .responses(requests)
            .select(
                col("task_id").as("judged_task"),
                col("call_key").as("judge_call_key"),
                coalesce(col("status"), lit("not called")).as("judge_status"),
                col("error").as("judge_error"),
                when(col("status").equalTo("succeeded"), verdict.apply(col("response_text")))
                    .as("judged"));
    Dataset<Row> rows =
        ok.join(verdicts, ok.col("task_id").equalTo(verdicts.col("judged_task")), "left")
            .drop("judged_task")
            .withColumn("judge_status", coalesce(col("judge_status"), lit("not called")));
    return new Judged(
        rows,
        judgeTemplate.id() + "@" + judgeTemplate.version() + " (" + client.model() + ")",
        outcome);
  }

  /** The behaviour the judge's reply names, or null when it names none. */
  static String judgedBehavior(String reply) {
    Classification read = new JudgeBehaviorClassifier().classify(reply);
    return read.present() ? read.behavior().id() : null;
  }

  /** One task's keyed request, with the task's gold columns carried for reading the answer. */
  private static final class BuildRequest implements MapFunction<Row, Row>, Serializable {
    private static final long serialVersionUID = 1L;

    static final StructType OUTPUT =
        new StructType()
            .add("task_id", DataTypes.StringType, false)
            .add("category", DataTypes.StringType, false)
            .add("source", DataTypes.StringType, false)
            .add("gold_behavior", DataTypes.StringType, false)
            .add("gold_target", DataTypes.StringType, false)
            .add("context_text", DataTypes.StringType, false)
            .add("call_key", DataTypes.StringType, false)
            .add("chat_request", DataTypes.StringType, false)
            .add("canonical_request", DataTypes.StringType, false);

    private final RequestBuilder builder;

    BuildRequest(RequestBuilder builder) {
      this.builder = builder;
    }

    @Override
    public Row call(Row row) {
      BehaviorTask task = TaskRows.fromRow(row);
      Map<String, String> vars = new LinkedHashMap<>(BehaviorPrompts.task(task));
      vars.remove(GenerationTask.KIND);
      RequestBuilder.Built built = builder.build(task.taskId(), GenerationTask.BEHAVE, vars);
      return RowFactory.create(
          task.taskId(),
          task.category(),
          task.source(),
          task.goldBehavior().id(),
          task.goldTarget().toJson(),
          vars.get(GenerationTask.CONTEXT),
          built.callKey(),
          built.chatRequestJson(),
          built.canonicalRequest());
    }
  }

  /** The judge's request for one response: the context it answered in, and the response. */
  private static final class BuildJudgeRequest implements MapFunction<Row, Row>, Serializable {
    private static final long serialVersionUID = 1L;

    static final StructType OUTPUT =
        new StructType()
            .add("task_id", DataTypes.StringType, false)
            .add("call_key", DataTypes.StringType, false)
            .add("chat_request", DataTypes.StringType, false)
            .add("canonical_request", DataTypes.StringType, false);

    private final RequestBuilder builder;

    BuildJudgeRequest(RequestBuilder builder) {
      this.builder = builder;
    }

    @Override
    public Row call(Row row) {
      Map<String, String> vars = new LinkedHashMap<>();
      vars.put(GenerationTask.CONTEXT, row.getString(1));
      vars.put(GenerationTask.RESPONSE, row.getString(2));
      RequestBuilder.Built built =
          builder.build(row.getString(0), GenerationTask.BEHAVIOR_JUDGE, vars);
      return RowFactory.create(
          row.getString(0), built.callKey(), built.chatRequestJson(), built.canonicalRequest());
    }
  }
}
