package dev.infuse.jobs.behavior;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.struct;
import static org.apache.spark.sql.functions.to_json;

import dev.infuse.jobs.config.ConfigException;
import dev.infuse.jobs.contract.Contract;
import dev.infuse.jobs.generate.PromptLibrary;
import dev.infuse.jobs.generate.RequestBuilder;
import dev.infuse.jobs.io.Quarantine;
import dev.infuse.jobs.llm.LlmCallRunner;
import dev.infuse.jobs.llm.LlmConfig;
import dev.infuse.jobs.run.JobRun;
import dev.infuse.udfs.behavior.BehaviorTask;
import dev.infuse.udfs.behavior.tasks.ConversationRewrite;
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
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.storage.StorageLevel;

/**
 * {@code behavior.conversation=llm}: after the tasks are built, each task's context goes to the
 * {@code llm} section's model through the client layer ({@code behavior-conversation}, cached in
 * {@code llm_calls}, so a rerun sends nothing that succeeded) to be rewritten as a conversation
 * among clinicians; {@link ConversationRewrite} parses and checks each reply on the executors.
 *
 * <p>What becomes of a task: <b>rewritten</b> (the conversation replaces its context);
 * <b>rejected</b> (the reply failed the check: the task is written as built, with the reason in
 * {@code construction.conversation}); <b>not sent</b> (a gold read by position: written as built,
 * with why); <b>call failed</b> (or left uncalled by {@code llm.max_total_tokens}): the task is not
 * written but quarantined, whole, with the error, and the next run calls it again. A failed call is
 * held back rather than written as built, so that a task's row never changes with a transient
 * failure: a rerun inserts it once its call succeeds, and never rewrites a row it wrote.
 */
final class ConversationRewriting {
  static final String PROMPT = "behavior-conversation";
  static final String OUTCOME = "conversation_outcome";
  static final String ERROR = "conversation_error";
  static final String REWRITTEN = "rewritten";
  static final String REJECTED = "rejected";
  static final String NOT_SENT = "not_sent";
  static final String CALL_FAILED = "call_failed";

  /** How many tasks came to each outcome. */
  record Counts(
      long rewritten, long rejected, long notSent, long callFailed, long recordsHeldBack) {
    long sent() {
      return rewritten + rejected + callFailed;
    }
  }

  /**
   * The rewrite's result.
   *
   * @param tasks the tasks to write, in the contract's columns
   * @param deadLetters the held-back tasks, in {@link Quarantine#DEAD_LETTERS} shape
   * @param rejections (task_id, reason) of the rejected rewrites, by task_id
   */
  record Result(
      Dataset<Row> tasks,
      Dataset<Row> deadLetters,
      Counts counts,
      List<Row> rejections,
      LlmCallRunner.Outcome outcome,
      String prompt,
      String generator,
      Dataset<Row> persisted) {
    void unpersist() {
      persisted.unpersist();
    }
  }

  private final JobRun run;

  ConversationRewriting(JobRun run) {
    this.run = run;
  }

  /**
   * Fails before anything is built when the llm section cannot rewrite: the extractive backend runs
   * no model, and a template passed off as a model's rewrite would hide that.
   */
  static void checkBackend(LlmConfig llm) {
    if (llm.client().backend() == LlmBackend.EXTRACTIVE) {
      throw new ConfigException(
          List.of(
              "behavior.conversation: got llm with llm.backend extractive, which runs no model to"
                  + " rewrite a case; expected llm.backend openai or djl, or"
                  + " behavior.conversation=template for the deterministic conversation"));
    }
  }

  /** Rewrites {@code tasks} (the contract's columns), calling only what is not cached. */
  Result rewrite(Contract contract, Dataset<Row> tasks) {
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
      StructType output = output(contract);
      Dataset<Row> judged =
          run.spark()
              .createDataFrame(
                  tasks
                      .join(
                          responses,
                          tasks.col("task_id").equalTo(responses.col("response_task_id")),
                          "left")
                      .drop("response_task_id")
                      .javaRDD()
                      .mapPartitions(new ApplyRewrites(prompt, builder.generator(), output)),
                  output)
              .persist(StorageLevel.MEMORY_AND_DISK());
      Map<String, Long> byOutcome = new LinkedHashMap<>();
      for (Row row : judged.groupBy(OUTCOME).count().collectAsList()) {
        byOutcome.put(row.getString(0), row.getLong(1));
      }
      Dataset<Row> failed = judged.filter(col(OUTCOME).equalTo(CALL_FAILED));
      long recordsHeldBack = failed.select("source", "source_record_id").distinct().count();
      Counts counts =
          new Counts(
              byOutcome.getOrDefault(REWRITTEN, 0L),
              byOutcome.getOrDefault(REJECTED, 0L),
              byOutcome.getOrDefault(NOT_SENT, 0L),
              byOutcome.getOrDefault(CALL_FAILED, 0L),
              recordsHeldBack);
      List<Row> rejections =
          judged
              .filter(col(OUTCOME).equalTo(REJECTED))
              .select(col("task_id"), col(ERROR))
              .orderBy("task_id")
              .collectAsList();
      Column[] contractColumns =
          contract.columnNames().stream().map(c -> col(c)).toArray(Column[]::new);
      Column[] payloadColumns =
          contract.columnNames().stream()
              .filter(c -> !c.equals("run_id")) // the same task fails alike in every run
              .map(c -> col(c))
              .toArray(Column[]::new);
      Dataset<Row> deadLetters =
          Quarantine.deadLetters(
              failed,
              col("source"),
              col("task_id"),
              to_json(struct(payloadColumns)),
              concat(
                  lit("task "),
                  col("task_id"),
                  lit(": the conversation rewrite call failed ("),
                  coalesce(col(ERROR), lit("no response")),
                  lit("); the task is left out until a rerun calls it again")));
      return new Result(
          judged.filter(col(OUTCOME).notEqual(CALL_FAILED)).select(contractColumns),
          deadLetters,
          counts,
          rejections,
          outcome,
          prompt,
          builder.generator(),
          judged);
    } finally {
      requests.unpersist();
    }
  }

  /**
   * Prints the outcome: sent, rewritten, rejected (the first few with their reasons), held back.
   */
  void print(Result result) {
    Counts c = result.counts();
    run.out()
        .printf(
            Locale.ROOT,
            "  conversation (llm, %s, %s): %d task(s) sent: %d rewritten, %d rejected, %d call(s)"
                + " failed; %d not sent (read by position)%n",
            result.prompt(),
            result.generator(),
            c.sent(),
            c.rewritten(),
            c.rejected(),
            c.callFailed(),
            c.notSent());
    run.out()
        .printf(
            Locale.ROOT,
            "  llm: %d request(s), %d cached, %d called, %d failed%n",
            result.outcome().requested(),
            result.outcome().cached(),
            result.outcome().called(),
            result.outcome().failed());
    int shown = 0;
    for (Row row : result.rejections()) {
      if (shown++ == 5) {
        run.out()
            .printf(
                Locale.ROOT,
                "    … and %d more (construction.conversation)%n",
                result.rejections().size() - 5);
        break;
      }
      run.out().printf(Locale.ROOT, "    rejected %s: %s%n", row.getString(0), row.getString(1));
    }
    if (c.callFailed() > 0) {
      run.out()
          .printf(
              Locale.ROOT,
              "    %d task(s) of %d record(s) quarantined: their calls failed; a rerun calls them"
                  + " again%n",
              c.callFailed(),
              c.recordsHeldBack());
    }
  }

  /** The counts for {@code runs.counts}. */
  static Map<String, Long> details(Result result) {
    Map<String, Long> details = new LinkedHashMap<>(LlmCallRunner.details(result.outcome()));
    Counts c = result.counts();
    details.put("conversation.sent", c.sent());
    details.put("conversation.rewritten", c.rewritten());
    details.put("conversation.rejected", c.rejected());
    details.put("conversation.call_failed", c.callFailed());
    details.put("conversation.not_sent", c.notSent());
    details.put("records.held_back", c.recordsHeldBack());
    return details;
  }

  private static StructType output(Contract contract) {
    List<StructField> fields = new ArrayList<>();
    for (StructField field : contract.schema().fields()) {
      fields.add(DataTypes.createStructField(field.name(), field.dataType(), true));
    }
    fields.add(DataTypes.createStructField(OUTCOME, DataTypes.StringType, false));
    fields.add(DataTypes.createStructField(ERROR, DataTypes.StringType, true));
    return DataTypes.createStructType(fields);
  }

  /** One keyed request per task that is sent, on an executor. */
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
        if (ConversationRewrite.notSent(task).isPresent()) {
          continue;
        }
        RequestBuilder.Built built =
            builder.build(
                task.taskId(),
                GenerationTask.BEHAVIOR_CONVERSATION,
                ConversationRewrite.variables(task));
        out.add(
            RowFactory.create(
                task.taskId(), built.callKey(), built.chatRequestJson(), built.canonicalRequest()));
      }
      return out.iterator();
    }
  }

  /**
   * Each task with its call's result (status, response_text, error; null when not sent or not
   * called): the task to write, and what became of it.
   */
  private static final class ApplyRewrites
      implements FlatMapFunction<Iterator<Row>, Row>, Serializable {
    private static final long serialVersionUID = 1L;

    private final String prompt;
    private final String generator;
    private final StructType output;

    ApplyRewrites(String prompt, String generator, StructType output) {
      this.prompt = prompt;
      this.generator = generator;
      this.output = output;
    }

    @Override
    public Iterator<Row> call(Iterator<Row> rows) {
      List<Row> out = new ArrayList<>();
      while (rows.hasNext()) {
        Row row = rows.next();
        BehaviorTask task = TaskRows.fromRow(row);
        String taxonomy = row.getAs("taxonomy");
        String runId = row.getAs("run_id");
        String status = row.getAs("status");
        Optional<String> unsent = ConversationRewrite.notSent(task);
        if (unsent.isPresent()) {
          out.add(
              withOutcome(
                  TaskRows.toRow(
                      ConversationRewrite.keptUnsent(task, unsent.get()), taxonomy, runId),
                  NOT_SENT,
                  unsent.get()));
        } else if (!"succeeded".equals(status)) {
          String error = row.getAs("error");
          out.add(
              withOutcome(
                  TaskRows.toRow(task, taxonomy, runId),
                  CALL_FAILED,
                  status == null ? "not called: llm.max_total_tokens reached" : error));
        } else {
          ConversationRewrite.Outcome judged =
              ConversationRewrite.apply(task, row.getAs("response_text"), prompt, generator);
          out.add(
              withOutcome(
                  TaskRows.toRow(judged.task(), taxonomy, runId),
                  judged.used() ? REWRITTEN : REJECTED,
                  judged.reason()));
        }
      }
      return out.iterator();
    }

    private Row withOutcome(Row task, String outcome, String error) {
      Object[] values = new Object[output.size()];
      for (int i = 0; i < task.size(); i++) {
        values[i] = task.get(i);
      }
      values[task.size()] = outcome;
      values[task.size() + 1] = error;
      return RowFactory.create(values);
    }
  }
}
