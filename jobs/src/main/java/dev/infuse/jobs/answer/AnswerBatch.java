package dev.infuse.jobs.answer;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.not;

import dev.infuse.jobs.config.ConfigException;
import dev.infuse.jobs.config.InfuseConfig;
import dev.infuse.jobs.contract.Contracts;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.jobs.io.WriteResult;
import dev.infuse.jobs.run.JobRun;
import dev.infuse.jobs.run.RunCounts;
import dev.infuse.udfs.embed.EmbedderSpec;
import dev.infuse.udfs.lm.LmModelSpec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;

/**
 * Answer runs that share one model, answered in one Spark pass: {@code evaluate}'s batching. The
 * model-free reader, or one trained model's log-likelihoods, answers the union of every run's
 * questions in one job (one document's questions of every setting in one task, so the embedding
 * cache serves them all); every run's predictions commit in one write. Each run keeps its own run
 * id, config, counts, dead letters and printout, and {@code runs} records each: the rows are the
 * ones {@link AnswerJob} would have written alone.
 *
 * <p>Only modes that answer on the executors without the LLM layer share a pass (embedding, and
 * loglikelihood on a model directory). Generate and endpoint loglikelihood go through {@code
 * llm_calls}, whose journal, budget and failure checks are per run, so those runs answer alone.
 */
public final class AnswerBatch {
  private AnswerBatch() {}

  /**
   * What a run with {@code config} shares with the runs it can be answered with (runs with equal
   * keys open the same model the same way), or null when it answers alone: behaviour runs, modes
   * that call the LLM layer, and configs that do not plan (the run then reports why itself).
   */
  public static String sharedModel(InfuseConfig config, SparkSession spark) {
    if (config.section(AnswerConfig.class).mode() == AnswerMode.BEHAVIOR) {
      return null;
    }
    try {
      return sharedModel(AnswerJob.plan(config, spark), config);
    } catch (ConfigException e) {
      return null;
    }
  }

  /** {@link #sharedModel(InfuseConfig, SparkSession)} of a run already planned. */
  private static String sharedModel(AnswerJob.Plan plan, InfuseConfig config) {
    return switch (plan.mode()) {
      case EMBEDDING -> "embedding " + config.section(EmbedderSpec.class);
      case LOGLIKELIHOOD ->
          plan.endpoint() != null
              ? null
              : String.format(
                  Locale.ROOT,
                  "loglikelihood %s, %d row(s) a batch, BOS %s",
                  new LmModelSpec(plan.modelDir().toString(), plan.llm().client().device()),
                  Math.max(1, plan.llm().client().maxConcurrency()),
                  plan.bosTokenId());
      default -> null;
    };
  }

  /**
   * Answers {@code runs}, which must all have the same non-null {@link #sharedModel}, and returns
   * each one's counts in order; each run's printout goes to its own {@link JobRun#out}.
   */
  public static List<RunCounts> run(List<JobRun> runs) {
    List<AnswerJob.Prepared> prepared = new ArrayList<>();
    for (JobRun run : runs) {
      prepared.add(new AnswerJob(run).prepare());
    }
    // From the plans prepare just made: planning again would reread each model's files.
    String shared = sharedModel(prepared.get(0).plan(), runs.get(0).config());
    for (int slot = 0; slot < runs.size(); slot++) {
      String own = sharedModel(prepared.get(slot).plan(), runs.get(slot).config());
      if (shared == null || !shared.equals(own)) {
        throw new IllegalArgumentException(
            "answer runs batched together must share one model: got "
                + own
                + " for "
                + runs.get(slot).runId()
                + ", expected "
                + shared);
      }
    }
    SparkSession spark = runs.get(0).spark();
    Warehouse warehouse = runs.get(0).warehouse();
    Dataset<Row> inputs = null;
    List<Integer> ragSlots = new ArrayList<>();
    for (int slot = 0; slot < prepared.size(); slot++) {
      Dataset<Row> slotted = prepared.get(slot).inputs().withColumn(BatchedAnswers.SLOT, lit(slot));
      inputs = inputs == null ? slotted : inputs.unionByName(slotted);
      if (prepared.get(slot).plan().setting().rag()) {
        ragSlots.add(slot);
      }
    }
    inputs = inputs.persist(StorageLevel.MEMORY_AND_DISK());
    try {
      Column withoutContext =
          col("passages").isNull().and(col(BatchedAnswers.SLOT).isin(ragSlots.toArray()));
      Dataset<Row> answerable = inputs.filter(not(withoutContext));
      AnswerJob first = prepared.get(0).job();
      JavaRDD<Row> answers =
          prepared.get(0).plan().mode() == AnswerMode.EMBEDDING
              ? first
                  .byDocument(answerable)
                  .javaRDD()
                  .mapPartitions(
                      new BatchedAnswers<>(
                          prepared.stream()
                              .map(p -> p.job().embeddingAnswers(p.plan(), p.rows()))
                              .toList()))
              : first
                  .spread(answerable)
                  .javaRDD()
                  .mapPartitions(
                      new BatchedAnswers<>(
                          prepared.stream()
                              .map(p -> p.job().loglikelihoodAnswers(p.plan(), p.rows()))
                              .toList()));
      Dataset<Row> answered =
          spark
              .createDataFrame(answers, PredictionRows.SCHEMA)
              .persist(StorageLevel.MEMORY_AND_DISK());

      Dataset<Row> predictions = null;
      Dataset<Row> unanswerable = null;
      for (int slot = 0; slot < prepared.size(); slot++) {
        AnswerJob.Prepared p = prepared.get(slot);
        Dataset<Row> own = answered.filter(col("run_id").equalTo(runs.get(slot).runId()));
        Dataset<Row> ownPredictions = p.job().predictions(p, own);
        Dataset<Row> ownUnanswerable =
            p.job()
                .unanswerable(
                    p,
                    own,
                    inputs.filter(col(BatchedAnswers.SLOT).equalTo(slot).and(withoutContext)))
                .withColumn(BatchedAnswers.SLOT, lit(slot));
        predictions =
            predictions == null ? ownPredictions : predictions.unionByName(ownPredictions);
        unanswerable =
            unanswerable == null ? ownUnanswerable : unanswerable.unionByName(ownUnanswerable);
      }
      unanswerable = unanswerable.persist(StorageLevel.MEMORY_AND_DISK());

      // Three actions count every run: its questions, its predictions' tally, its dead letters.
      Map<Integer, Long> read = countBySlot(inputs);
      Map<String, Row> tallies = new HashMap<>();
      for (Row r :
          predictions
              .groupBy("run_id")
              .agg(AnswerJob.TALLY[0], tail(AnswerJob.TALLY))
              .collectAsList()) {
        tallies.put(r.getString(0), r);
      }
      Map<Integer, Long> quarantined = countBySlot(unanswerable);
      // Every row belongs to one of these new runs: nothing to compare with what the table holds.
      WriteResult write = warehouse.upsertFresh(Contracts.load(AnswerJob.TABLE), predictions);
      answered.unpersist();

      List<RunCounts> counts = new ArrayList<>();
      for (int slot = 0; slot < prepared.size(); slot++) {
        AnswerJob.Prepared p = prepared.get(slot);
        JobRun run = runs.get(slot);
        long deadLetters = quarantined.getOrDefault(slot, 0L);
        // A run with dead letters writes them as it would alone: they are rare, and the table
        // keeps a record's first run id.
        WriteResult quarantineWrite =
            run.quarantine(
                AnswerJob.deadLetters(
                    unanswerable
                        .filter(col(BatchedAnswers.SLOT).equalTo(slot))
                        .drop(BatchedAnswers.SLOT)),
                deadLetters);
        // The tally's columns follow run_id.
        AnswerJob.Tally tally =
            AnswerJob.Tally.of(
                read.getOrDefault(slot, 0L), tallies.get(run.runId()), 1, deadLetters);
        long predicted = tally.predicted();
        counts.add(
            p.job()
                .counts(
                    p,
                    tally,
                    null,
                    new WriteResult(
                        write.table(), predicted, 0, 0, predicted == 0 ? -1 : write.version()),
                    quarantineWrite));
        run.out()
            .printf(
                Locale.ROOT,
                "  answered in one Spark pass with %d other run(s) that share %s%n",
                runs.size() - 1,
                shared);
      }
      unanswerable.unpersist();
      return counts;
    } finally {
      inputs.unpersist();
    }
  }

  private static Map<Integer, Long> countBySlot(Dataset<Row> rows) {
    Map<Integer, Long> counts = new HashMap<>();
    for (Row r : rows.groupBy(BatchedAnswers.SLOT).count().collectAsList()) {
      counts.put(r.getInt(0), r.getLong(1));
    }
    return counts;
  }

  private static Column[] tail(Column[] columns) {
    return java.util.Arrays.copyOfRange(columns, 1, columns.length);
  }
}
