package dev.infuse.jobs.behavior;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.row_number;
import static org.apache.spark.sql.functions.sha2;
import static org.apache.spark.sql.functions.struct;
import static org.apache.spark.sql.functions.to_json;

import dev.infuse.jobs.config.InfuseHome;
import dev.infuse.jobs.contract.Contract;
import dev.infuse.jobs.contract.Contracts;
import dev.infuse.jobs.io.Quarantine;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.jobs.io.WriteResult;
import dev.infuse.jobs.llm.LlmConfig;
import dev.infuse.jobs.llm.LlmFailures;
import dev.infuse.jobs.run.JobRun;
import dev.infuse.jobs.run.RunCounts;
import dev.infuse.udfs.behavior.tasks.Taxonomy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.expressions.Window;
import org.apache.spark.storage.StorageLevel;

/**
 * {@code build-behavior-tasks}: BehaviorBench-style tasks from the clinical sources ingest wrote
 * (MEDEC, AgentClinic and ACI-BENCH documents, MedQA questions), under the taxonomy of {@code
 * behavior.taxonomy}; the gold behaviour and target are known by construction. Writes {@code
 * behavior_tasks}; a source record that cannot make a task goes to quarantine whole, with the
 * reason. Counts are in source records: read = built from (tasks, or none when no category draws
 * one) + quarantined. With {@code behavior.conversation=llm} the built tasks are then rewritten as
 * clinicians' conversations by {@link ConversationRewriting}; a record whose task's call failed
 * counts as quarantined (the task is, with the error) until a rerun's call succeeds.
 */
public final class BuildBehaviorTasksJob {
  public static final String NAME = "build-behavior-tasks";
  private static final List<String> DOCUMENT_SOURCES = List.of("medec", "agentclinic", "aci-bench");
  private static final String QUESTION_SOURCE = "medqa";

  private final JobRun run;
  private final BehaviorConfig options;

  public BuildBehaviorTasksJob(JobRun run) {
    this.run = run;
    this.options = run.config().section(BehaviorConfig.class);
  }

  public RunCounts run() {
    boolean llmConversation = options.conversation() == BehaviorConfig.Conversation.LLM;
    LlmConfig llm = run.config().section(LlmConfig.class);
    if (llmConversation) {
      ConversationRewriting.checkBackend(llm);
    }
    Path taxonomyPath = InfuseHome.resolve(options.taxonomy());
    String yaml = readTaxonomy(taxonomyPath);
    // Parse on the driver first, so a bad taxonomy fails before any task runs.
    Taxonomy taxonomy = Taxonomy.parse(yaml, taxonomyPath.toString());
    long seed = options.seed() != null ? options.seed() : run.config().run().seed();
    Dataset<Row> records = limited(sourceRecords(run.warehouse()));
    TaskBuilding building =
        new TaskBuilding(
            yaml,
            taxonomyPath.toString(),
            seed,
            options.conversation() == BehaviorConfig.Conversation.TEMPLATE,
            run.runId());
    Dataset<Row> built =
        run.spark()
            .createDataFrame(records.javaRDD().mapPartitions(building), TaskBuilding.OUTPUT)
            .persist(StorageLevel.MEMORY_AND_DISK());
    ConversationRewriting.Result conversation = null;
    try {
      Contract contract = Contracts.load("behavior_tasks");
      Dataset<Row> tasks =
          built
              .filter(col("task_id").isNotNull())
              .select(contract.columnNames().stream().map(c -> col(c)).toArray(Column[]::new));
      Dataset<Row> rejected = built.filter(col("reject").isNotNull());
      long read = records.count();
      long quarantined = rejected.count();
      long taskCount = tasks.count();
      Dataset<Row> toWrite = tasks;
      if (llmConversation) {
        conversation = new ConversationRewriting(run).rewrite(contract, tasks);
        toWrite = conversation.tasks();
      }
      List<Row> withoutTask =
          built
              .filter(col("no_task").isNotNull())
              .groupBy("reject_source")
              .count()
              .orderBy("reject_source")
              .collectAsList();
      WriteResult write = run.warehouse().upsert(contract, changedOnly(contract, toWrite));
      Dataset<Row> deadLetters =
          Quarantine.deadLetters(
              rejected,
              col("reject_source"),
              col("reject_record"),
              col("reject_payload"),
              col("reject"));
      long heldBack = 0;
      if (conversation != null && conversation.counts().callFailed() > 0) {
        deadLetters = deadLetters.unionByName(conversation.deadLetters());
        heldBack = conversation.counts().recordsHeldBack();
      }
      run.quarantine(deadLetters, quarantined + heldBack);
      List<Row> perCategory =
          tasks.groupBy("type", "category").count().orderBy("type", "category").collectAsList();
      run.out()
          .printf(
              Locale.ROOT,
              "build-behavior-tasks: %d source record(s) of %s: %d task(s) built under %s@%d,"
                  + " %d record(s) quarantined; seed %d%n",
              read,
              String.join(", ", options.sources()),
              taskCount,
              taxonomy.id(),
              taxonomy.version(),
              quarantined,
              seed);
      Map<String, Long> details = new LinkedHashMap<>();
      long noTask = 0;
      for (Row row : withoutTask) {
        noTask += row.getLong(1);
        details.put("records.without_task." + row.getString(0), row.getLong(1));
        run.out()
            .printf(
                Locale.ROOT,
                "  %d %s record(s) gave no task: no category draws one from them%s%n",
                row.getLong(1),
                row.getString(0),
                row.getString(0).equals("aci-bench")
                    ? " (a note whose history has fewer than three time-cued events to order)"
                    : "");
      }
      details.put("records.without_task", noTask);
      for (Row row : perCategory) {
        run.out()
            .printf(
                Locale.ROOT,
                "  %-10s %-24s %6d%n",
                row.getString(0),
                row.getString(1),
                row.getLong(2));
        details.put("tasks." + row.getString(1), row.getLong(2));
      }
      details.put("behavior_tasks.inserted", write.inserted());
      details.put("behavior_tasks.updated", write.updated());
      details.put("tasks", taskCount);
      if (conversation == null) {
        return new RunCounts(read, read - quarantined, quarantined, details);
      }
      new ConversationRewriting(run).print(conversation);
      details.putAll(ConversationRewriting.details(conversation));
      // A record with a held-back task is not done: counted with the quarantined records until a
      // rerun's call succeeds (its other tasks are written).
      RunCounts counts =
          new RunCounts(read, read - quarantined - heldBack, quarantined + heldBack, details);
      return LlmFailures.check(
          NAME, "conversation calls", conversation.outcome(), llm.maxFailureFraction(), counts);
    } finally {
      if (conversation != null) {
        conversation.unpersist();
      }
      built.unpersist();
    }
  }

  /**
   * The tasks whose content the table does not already hold: a rebuild with the same seed commits
   * nothing, though each row records the run that wrote it. Compared by a hash of every column but
   * run_id (construction is a map, which Spark cannot compare directly).
   */
  private Dataset<Row> changedOnly(Contract contract, Dataset<Row> tasks) {
    if (!run.warehouse().exists(contract.table())) {
      return tasks;
    }
    Column content =
        sha2(
            to_json(
                struct(
                    contract.columnNames().stream()
                        .filter(c -> !c.equals("run_id"))
                        .map(c -> col(c))
                        .toArray(Column[]::new))),
            256);
    Dataset<Row> held =
        run.warehouse()
            .read(contract.table())
            .select(col("task_id").as("held_id"), content.as("held_content"));
    return tasks
        .withColumn("content", content)
        .join(
            held,
            col("task_id").equalTo(col("held_id")).and(col("content").equalTo(col("held_content"))),
            "left_anti")
        .drop("content");
  }

  private static String readTaxonomy(Path path) {
    if (!Files.isRegularFile(path)) {
      throw new IllegalArgumentException(
          "behavior.taxonomy: got "
              + path
              + ", expected a taxonomy YAML file such as conf/behavior/taxonomy.yaml");
    }
    try {
      return Files.readString(path, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("behavior.taxonomy: cannot read " + path, e);
    }
  }

  /**
   * The configured sources' records in one shape: {@code (source, record_id, kind, title, text,
   * options, gold, gold_index, meta)}. Fails naming the ingest command when a source has no rows.
   */
  private Dataset<Row> sourceRecords(Warehouse warehouse) {
    List<String> documentSources =
        options.sources().stream().filter(DOCUMENT_SOURCES::contains).toList();
    boolean questions = options.sources().contains(QUESTION_SOURCE);
    List<Dataset<Row>> parts = new ArrayList<>();
    List<String> missing = new ArrayList<>();
    if (!documentSources.isEmpty()) {
      Dataset<Row> documents =
          warehouse.exists("documents")
              ? warehouse.read("documents").filter(col("corpus").isin(documentSources.toArray()))
              : null;
      List<String> present =
          documents == null
              ? List.of()
              : documents
                  .select("corpus")
                  .distinct()
                  .as(org.apache.spark.sql.Encoders.STRING())
                  .collectAsList();
      for (String source : documentSources) {
        if (!present.contains(source)) {
          missing.add(source);
        }
      }
      if (documents != null) {
        parts.add(
            documents.select(
                col("corpus").as("source"),
                col("doc_id").as("record_id"),
                lit("document").as("kind"),
                col("title"),
                col("text"),
                lit(null).cast("array<string>").as("options"),
                lit(null).cast("string").as("gold"),
                lit(null).cast("int").as("gold_index"),
                col("meta")));
      }
    }
    if (questions) {
      Dataset<Row> medqa =
          warehouse.exists("questions")
              ? warehouse.read("questions").filter(col("benchmark").equalTo(QUESTION_SOURCE))
              : null;
      if (medqa == null || medqa.isEmpty()) {
        missing.add(QUESTION_SOURCE);
      }
      if (medqa != null) {
        parts.add(
            medqa.select(
                col("benchmark").as("source"),
                col("question_id").as("record_id"),
                lit("question").as("kind"),
                lit(null).cast("string").as("title"),
                col("question").as("text"),
                col("options"),
                col("gold"),
                col("gold_index"),
                col("meta")));
      }
    }
    if (!missing.isEmpty()) {
      throw new IllegalArgumentException(
          "behavior.sources: got "
              + missing
              + " with no rows in the warehouse, expected `infuse ingest --format "
              + missing.get(0)
              + " --input ...` first (or leave it out of behavior.sources)");
    }
    Dataset<Row> all = parts.get(0);
    for (int i = 1; i < parts.size(); i++) {
      all = all.unionByName(parts.get(i));
    }
    return all;
  }

  /** The first behavior.max_records_per_source records of each source, by key. */
  private Dataset<Row> limited(Dataset<Row> records) {
    if (options.maxRecordsPerSource() == null) {
      return records;
    }
    return records
        .withColumn(
            "rank", row_number().over(Window.partitionBy("source").orderBy(col("record_id"))))
        .filter(col("rank").leq(options.maxRecordsPerSource()))
        .drop("rank");
  }
}
