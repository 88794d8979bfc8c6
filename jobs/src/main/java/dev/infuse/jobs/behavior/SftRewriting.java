package dev.infuse.jobs.behavior;

import static org.apache.spark.sql.functions.col;

import dev.infuse.jobs.config.ConfigException;
import dev.infuse.jobs.generate.PromptLibrary;
import dev.infuse.jobs.generate.RequestBuilder;
import dev.infuse.jobs.llm.LlmCallRunner;
import dev.infuse.jobs.llm.LlmConfig;
import dev.infuse.jobs.run.JobRun;
import dev.infuse.udfs.behavior.BehaviorTask;
import dev.infuse.udfs.behavior.sft.BehaviorTokens;
import dev.infuse.udfs.behavior.sft.SftRewrite;
import dev.infuse.udfs.behavior.sft.SftTargets;
import dev.infuse.udfs.generate.GenerationTask;
import dev.infuse.udfs.llm.LlmBackend;
import dev.infuse.udfs.prompt.PromptTemplate;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.storage.StorageLevel;

/**
 * {@code behavior.sft.rewrite=llm}: each task's template target text ({@link SftTargets#text},
 * without the token) goes with its context to the {@code llm} section's model through the client
 * layer ({@code behavior-sft-rewrite}, cached in {@code llm_calls}), as a Spark job before sft-data
 * writes its files; {@link SftRewrite} checks each reply on the executors. A reply that fails the
 * check, or a call that failed, leaves the template text, counted; a rerun calls only the failed.
 * The files are written whole on every run, so a template kept for a failed call is replaced by the
 * rewrite as soon as a rerun's call succeeds.
 */
final class SftRewriting {
  static final String PROMPT = "behavior-sft-rewrite";
  static final String REWRITTEN = "rewritten";
  static final String FELL_BACK = "fell_back";
  static final String CALL_FAILED = "call_failed";

  /** The target of each task: (task_id, target_text, target_source, rewrite_fallback, outcome). */
  static final StructType TARGETS =
      new StructType()
          .add("target_task_id", DataTypes.StringType, false)
          .add("target_text", DataTypes.StringType, false)
          .add("target_source", DataTypes.StringType, false)
          .add("rewrite_fallback", DataTypes.StringType, true)
          .add("rewrite_outcome", DataTypes.StringType, false);

  /**
   * The targets, and what the calls did.
   *
   * @param targets one row per task, in {@link #TARGETS}
   */
  record Result(
      Dataset<Row> targets,
      Map<String, Long> byOutcome,
      LlmCallRunner.Outcome outcome,
      String prompt,
      String generator) {
    long count(String outcome) {
      return byOutcome.getOrDefault(outcome, 0L);
    }
  }

  private final JobRun run;

  SftRewriting(JobRun run) {
    this.run = run;
  }

  /** Fails before any call when the llm section runs no model (the extractive backend). */
  static void checkBackend(LlmConfig llm) {
    if (llm.client().backend() == LlmBackend.EXTRACTIVE) {
      throw new ConfigException(
          List.of(
              "behavior.sft.rewrite: got llm with llm.backend extractive, which runs no model to"
                  + " rewrite a target; expected llm.backend openai or djl, or"
                  + " behavior.sft.rewrite=template"));
    }
  }

  /** The targets of {@code tasks} (rows of behavior_tasks), calling only what is not cached. */
  Result rewrite(Dataset<Row> tasks, Map<String, String> tokens) {
    PromptTemplate template =
        PromptLibrary.load(
                run.spark().sparkContext().hadoopConfiguration(), run.config().run().promptsDir())
            .get(PROMPT);
    String prompt = template.id() + "@" + template.version();
    RequestBuilder builder = new RequestBuilder(run.config(), template);
    Dataset<Row> requests =
        run.spark()
            .createDataFrame(
                tasks.javaRDD().mapPartitions(new BuildRequests(builder)), BuildRequests.OUTPUT)
            .persist(StorageLevel.MEMORY_AND_DISK());
    try {
      LlmCallRunner runner = new LlmCallRunner(run);
      LlmCallRunner.Outcome outcome = runner.call(requests);
      Dataset<Row> responses =
          runner
              .responses(requests)
              .select(
                  col("task_id").as("response_task_id"),
                  col("status"),
                  col("response_text"),
                  col("error"));
      Dataset<Row> targets =
          run.spark()
              .createDataFrame(
                  tasks
                      .join(
                          responses,
                          tasks.col("task_id").equalTo(responses.col("response_task_id")),
                          "left")
                      .drop("response_task_id")
                      .javaRDD()
                      .mapPartitions(new ApplyRewrites(prompt, tokens)),
                  TARGETS)
              .persist(StorageLevel.MEMORY_AND_DISK());
      Map<String, Long> byOutcome = new LinkedHashMap<>();
      for (Row row : targets.groupBy("rewrite_outcome").count().collectAsList()) {
        byOutcome.put(row.getString(0), row.getLong(1));
      }
      return new Result(targets, byOutcome, outcome, prompt, builder.generator());
    } finally {
      requests.unpersist();
    }
  }

  /** Prints what became of the targets. */
  void print(Result result) {
    run.out()
        .printf(
            Locale.ROOT,
            "  targets (llm, %s, %s): %d rewritten, %d fell back to the template (check failed),"
                + " %d call(s) failed (template kept; a rerun calls them again)%n",
            result.prompt(),
            result.generator(),
            result.count(REWRITTEN),
            result.count(FELL_BACK),
            result.count(CALL_FAILED));
    run.out()
        .printf(
            Locale.ROOT,
            "  llm: %d request(s), %d cached, %d called, %d failed%n",
            result.outcome().requested(),
            result.outcome().cached(),
            result.outcome().called(),
            result.outcome().failed());
  }

  /** The counts for {@code runs.counts}. */
  static Map<String, Long> details(Result result) {
    Map<String, Long> details = new LinkedHashMap<>(LlmCallRunner.details(result.outcome()));
    details.put("targets.rewritten", result.count(REWRITTEN));
    details.put("targets.fell_back", result.count(FELL_BACK));
    details.put("targets.call_failed", result.count(CALL_FAILED));
    return details;
  }

  /** One keyed request per task, on an executor. */
  private static final class BuildRequests
      implements FlatMapFunction<Iterator<Row>, Row>, Serializable {
    private static final long serialVersionUID = 1L;

    static final StructType OUTPUT =
        new StructType()
            .add("task_id", DataTypes.StringType, false)
            .add("call_key", DataTypes.StringType, false)
            .add("chat_request", DataTypes.StringType, false)
            .add("canonical_request", DataTypes.StringType, false);

    private final RequestBuilder builder;

    BuildRequests(RequestBuilder builder) {
      this.builder = builder;
    }

    @Override
    public Iterator<Row> call(Iterator<Row> rows) {
      List<Row> out = new ArrayList<>();
      while (rows.hasNext()) {
        BehaviorTask task = TaskRows.fromRow(rows.next());
        RequestBuilder.Built built =
            builder.build(
                task.taskId(), GenerationTask.BEHAVIOR_SFT_REWRITE, SftRewrite.variables(task));
        out.add(
            RowFactory.create(
                task.taskId(), built.callKey(), built.chatRequestJson(), built.canonicalRequest()));
      }
      return out.iterator();
    }
  }

  /** Each task with its call's result: the target text and where it came from. */
  private static final class ApplyRewrites
      implements FlatMapFunction<Iterator<Row>, Row>, Serializable {
    private static final long serialVersionUID = 1L;

    private final String prompt;
    private final Map<String, String> tokens;

    ApplyRewrites(String prompt, Map<String, String> tokens) {
      this.prompt = prompt;
      this.tokens = Map.copyOf(tokens);
    }

    @Override
    public Iterator<Row> call(Iterator<Row> rows) {
      BehaviorTokens behaviorTokens = BehaviorTokens.of(tokens);
      List<Row> out = new ArrayList<>();
      while (rows.hasNext()) {
        Row row = rows.next();
        BehaviorTask task = TaskRows.fromRow(row);
        String template = SftTargets.text(task);
        if (!"succeeded".equals(row.getAs("status"))) {
          String error = row.getAs("error");
          out.add(
              RowFactory.create(
                  task.taskId(),
                  template,
                  SftRewrite.TEMPLATE,
                  "the call failed: " + (error == null ? "not called" : error),
                  CALL_FAILED));
          continue;
        }
        String reply = row.getAs("response_text");
        Optional<String> problem = SftRewrite.problem(task, reply, behaviorTokens);
        out.add(
            problem.isPresent()
                ? RowFactory.create(
                    task.taskId(), template, SftRewrite.TEMPLATE, problem.get(), FELL_BACK)
                : RowFactory.create(
                    task.taskId(), reply.strip(), "llm:" + prompt, null, REWRITTEN));
      }
      return out.iterator();
    }
  }
}
