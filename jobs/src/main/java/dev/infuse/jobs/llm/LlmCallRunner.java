package dev.infuse.jobs.llm;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.desc;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.row_number;
import static org.apache.spark.sql.functions.when;

import dev.infuse.jobs.contract.Contract;
import dev.infuse.jobs.contract.Contracts;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.jobs.io.WriteResult;
import dev.infuse.jobs.run.JobRun;
import dev.infuse.udfs.llm.LlmSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.expressions.Window;
import org.apache.spark.storage.StorageLevel;
import org.apache.spark.util.SerializableConfiguration;

/**
 * Makes a job's LLM calls exactly once. Given the requests (key, request JSON, canonical request),
 * it first folds any journal a killed run left behind into {@code llm_calls}, then calls only the
 * keys that have not succeeded yet, in waves when a token budget is set, journaling each response
 * as it arrives, and finally merges the results into {@code llm_calls}. Rerunning a finished or
 * killed job sends no request for a key that already succeeded; failed keys are tried again.
 */
public final class LlmCallRunner {
  /**
   * Input columns: the request key, the {@code ChatRequest} as JSON, the canonical request for the
   * cache row.
   */
  public static final List<String> REQUEST_COLUMNS =
      List.of("call_key", "chat_request", "canonical_request");

  /**
   * An optional input column (bigint): calls are made in ascending order of it, then of key, so
   * waves stopped by a {@link Goal} or a token budget have done the most important requests.
   */
  public static final String ORDER_COLUMN = "call_order";

  /**
   * An optional input column (int): the index of the client in the runner's {@code clients} that
   * makes the call, so that several models (the agents of a discussion) are called in one stage,
   * concurrently. Without it every call goes to the config's client.
   */
  public static final String CLIENT_COLUMN = "llm_client";

  /** What {@code llm_calls} holds for a requested key before this run: null, failed, succeeded. */
  private static final String KNOWN_STATUS = "_known_status";

  /**
   * A target measured in the job's outputs, not in LLM tokens, such as the unique synthetic tokens
   * of a table. With one, calls go in waves, each output is written as its wave ends, and no wave
   * starts once the target is reached; the requests left are deferred to a run with a larger
   * target.
   */
  public interface Goal {
    /** The target, in the units of {@link #initial} and {@link #afterWave}; at least 1. */
    long target();

    /**
     * The progress before this run calls anything, once the journals of killed runs are folded in
     * (the job writes the outputs of calls that earlier runs made, then measures).
     */
    long initial();

    /**
     * Writes the outputs of one wave's calls (their {@code llm_calls} rows, already merged) and
     * returns the progress now.
     */
    long afterWave(Dataset<Row> waveCalls);
  }

  private final JobRun run;
  private final LlmConfig config;
  private final List<LlmSettings> clients;
  private final Contract contract = Contracts.load("llm_calls");

  public LlmCallRunner(JobRun run) {
    this(run, run.config().section(LlmConfig.class));
  }

  /**
   * A runner for an LLM other than the config's {@code llm} section: {@code answer} runs the
   * trained settings on {@code answer.model_dir} through the djl backend with the section's other
   * limits.
   */
  public LlmCallRunner(JobRun run, LlmConfig config) {
    this(run, config, List.of(config.client()));
  }

  /**
   * A runner whose requests name their client by index ({@link #CLIENT_COLUMN}); {@code config}
   * gives the limits (budget, rows per task, failure fraction) of all of them.
   */
  public LlmCallRunner(JobRun run, LlmConfig config, List<LlmSettings> clients) {
    if (clients.isEmpty()) {
      throw new IllegalArgumentException("clients: got none, expected at least one");
    }
    this.run = run;
    this.config = config;
    this.clients = List.copyOf(clients);
  }

  /**
   * What the runner did, for the run's counts.
   *
   * @param callSeconds wall time of the calling stages alone (without the cache lookup and the
   *     merge)
   * @param costUsd estimated cost of the tokens, from {@code llm.prices}; 0 when the model has no
   *     price
   * @param deferredByTarget requests left uncalled because the {@link Goal} was reached
   * @param goalProgress the goal's progress at the end; -1 without a goal
   */
  public record Outcome(
      long requested,
      long cached,
      long called,
      long failed,
      long deferredByBudget,
      long tokensIn,
      long tokensOut,
      double callSeconds,
      double costUsd,
      long deferredByTarget,
      long goalProgress) {

    /** No calls: the start of a sum over several calls of a runner. */
    public static final Outcome NONE = new Outcome(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1);

    /** Both outcomes together, for a job that calls in several rounds (the turns of discuss). */
    public Outcome plus(Outcome other) {
      return new Outcome(
          requested + other.requested,
          cached + other.cached,
          called + other.called,
          failed + other.failed,
          deferredByBudget + other.deferredByBudget,
          tokensIn + other.tokensIn,
          tokensOut + other.tokensOut,
          callSeconds + other.callSeconds,
          costUsd + other.costUsd,
          deferredByTarget + other.deferredByTarget,
          Math.max(goalProgress, other.goalProgress));
    }
  }

  /**
   * Makes the calls that are not cached yet; afterwards {@link #responses} answers for every key.
   */
  public Outcome call(Dataset<Row> requests) {
    return call(requests, null);
  }

  /**
   * Makes the calls that are not cached yet, in waves, until {@code goal} is reached (null: all of
   * them, within {@code llm.max_total_tokens}).
   */
  public Outcome call(Dataset<Row> requests, Goal goal) {
    SparkSession spark = run.spark();
    Warehouse warehouse = run.warehouse();
    warehouse.ensureTable(contract);
    recoverJournals();

    boolean ordered = List.of(requests.columns()).contains(ORDER_COLUMN);
    boolean routed = List.of(requests.columns()).contains(CLIENT_COLUMN);
    Dataset<Row> withClient = routed ? requests : requests.withColumn(CLIENT_COLUMN, lit(0));
    List<String> taskColumns = new ArrayList<>(REQUEST_COLUMNS);
    taskColumns.add(CLIENT_COLUMN);
    Dataset<Row> unique =
        ordered
            ? withClient
                .groupBy("call_key")
                .agg(
                    org.apache.spark.sql.functions.first("chat_request").as("chat_request"),
                    org.apache
                        .spark
                        .sql
                        .functions
                        .first("canonical_request")
                        .as("canonical_request"),
                    org.apache.spark.sql.functions.first(CLIENT_COLUMN).as(CLIENT_COLUMN),
                    org.apache.spark.sql.functions.min(ORDER_COLUMN).as(ORDER_COLUMN))
            : withClient
                .select(
                    taskColumns.stream()
                        .map(c -> col(c))
                        .toArray(org.apache.spark.sql.Column[]::new))
                .dropDuplicates("call_key");
    // Every requested key with what llm_calls holds for it (nothing, a failure, a success), fixed
    // in one pass: each wave's write to llm_calls would otherwise change what a recomputed pending
    // set holds, and shift every later wave's offset past requests that were never called.
    Dataset<Row> known =
        warehouse.read("llm_calls").select(col("call_key"), col("status").as(KNOWN_STATUS));
    Dataset<Row> joined =
        unique.join(
            known,
            scala.collection.JavaConverters.asScalaBuffer(List.of("call_key")).toSeq(),
            "left");
    // Waves (a token budget or a goal) take the pending keys in order, most important first; one
    // wave takes them all, and sorting them would only cost a sampling pass and a shuffle.
    boolean inWaves = goal != null || config.maxTotalTokens() > 0;
    Dataset<Row> keys =
        (inWaves
                ? joined.orderBy(
                    ordered
                        ? new org.apache.spark.sql.Column[] {col(ORDER_COLUMN), col("call_key")}
                        : new org.apache.spark.sql.Column[] {col("call_key")})
                : joined)
            .localCheckpoint(true);
    Dataset<Row> pending =
        keys.filter(
            col(KNOWN_STATUS).isNull().or(col(KNOWN_STATUS).notEqual(LlmCallRows.SUCCEEDED)));
    try {
      Row keyCounts =
          keys.selectExpr(
                  "count(*)",
                  "coalesce(sum(CASE WHEN "
                      + KNOWN_STATUS
                      + " IS NULL OR "
                      + KNOWN_STATUS
                      + " <> '"
                      + LlmCallRows.SUCCEEDED
                      + "' THEN 1 ELSE 0 END), 0)",
                  "count(" + KNOWN_STATUS + ")")
              .head();
      long requested = keyCounts.getLong(0);
      long toCall = keyCounts.getLong(1);
      long failedBefore = keyCounts.getLong(2) - (requested - toCall);
      long goalBefore = goal == null ? -1 : goal.initial();
      long goalNow = goalBefore;
      // A first call of every pending key (the usual case) is appended in the pass that makes the
      // calls, so writing them costs only the commit. A key that failed before already has a row,
      // which only a merge can replace; and a goal reads each wave's rows back, so those waves are
      // kept in memory and merged.
      boolean appendInPass = goal == null && failedBefore == 0;
      LlmProgress.Accumulators counters =
          LlmProgress.Accumulators.register(spark.sparkContext(), run.job());
      Broadcast<SerializableConfiguration> hadoop =
          new JavaSparkContext(spark.sparkContext())
              .broadcast(new SerializableConfiguration(spark.sparkContext().hadoopConfiguration()));
      LlmCallTask.Totals waveTotals = LlmCallTask.Totals.register(spark.sparkContext(), run.job());
      String journal = journalRoot() + "/" + run.runId();
      long called = 0;
      long failed = 0;
      long tokensIn = 0;
      long tokensOut = 0;
      long offset = 0;
      double callSecondsTotal = 0;
      try (LlmProgress progress =
          new LlmProgress(
              run.job(),
              counters,
              toCall,
              run.config().run().progressIntervalSeconds(),
              run.err())) {
        while (offset < toCall) {
          long budgetLeft =
              config.maxTotalTokens() == 0
                  ? Long.MAX_VALUE
                  : config.maxTotalTokens() - tokensIn - tokensOut;
          if (budgetLeft <= 0 || goal != null && goalNow >= goal.target()) {
            break;
          }
          long wave = waveSize(toCall - offset, called, tokensIn + tokensOut, budgetLeft);
          if (goal != null) {
            wave =
                Math.min(
                    wave,
                    goalWave(
                        toCall - offset, called, goalNow - goalBefore, goal.target() - goalNow));
          }
          // offset/limit funnel their rows through one partition; a single wave needs neither.
          Dataset<Row> slice =
              (offset == 0 && wave == toCall
                      ? pending
                      : pending.offset((int) offset).limit((int) wave))
                  .select(
                      taskColumns.stream()
                          .map(c -> col(c))
                          .toArray(org.apache.spark.sql.Column[]::new));
          int partitions =
              (int)
                  Math.max(
                      1, Math.min(wave, (wave + config.rowsPerTask() - 1) / config.rowsPerTask()));
          JavaRDD<Row> calls =
              slice
                  .repartition(partitions)
                  .javaRDD()
                  .mapPartitions(
                      new LlmCallTask(clients, journal, run.runId(), hadoop, counters, waveTotals));
          long waveStart = System.nanoTime();
          long[] totals;
          if (appendInPass) {
            WriteResult written =
                warehouse.appendComputed(contract, spark.createDataFrame(calls, contract.schema()));
            totals = waveTotals.take();
            if (written.inserted() != totals[0]) {
              throw new IllegalStateException(
                  "llm_calls: the wave wrote "
                      + written.inserted()
                      + " row(s) but made "
                      + totals[0]
                      + " call(s); expected one row per call");
            }
            double waveSeconds = (System.nanoTime() - waveStart) / 1e9;
            callSecondsTotal += waveSeconds;
            run.err()
                .printf(
                    Locale.ROOT,
                    "[%s] llm wave: %d call(s) made and appended to llm_calls in %.1f s (%.1f"
                        + " req/s)%n",
                    run.job(),
                    totals[0],
                    waveSeconds,
                    totals[0] / Math.max(waveSeconds, 1e-3));
          } else {
            Dataset<Row> results =
                spark
                    .createDataFrame(calls, contract.schema())
                    .persist(StorageLevel.MEMORY_AND_DISK());
            Row sums =
                results
                    .selectExpr(
                        "count(*)",
                        "coalesce(sum(CASE WHEN status = 'failed' THEN 1 ELSE 0 END), 0)",
                        "coalesce(sum(tokens_in), 0)",
                        "coalesce(sum(tokens_out), 0)")
                    .head();
            // These totals come from the rows; the accumulators were added in a map stage, whose
            // retried tasks may count twice.
            waveTotals.take();
            totals =
                new long[] {sums.getLong(0), sums.getLong(1), sums.getLong(2), sums.getLong(3)};
            double callSeconds = (System.nanoTime() - waveStart) / 1e9;
            callSecondsTotal += callSeconds;
            warehouse.upsertFresh(contract, results);
            if (goal != null) {
              goalNow = goal.afterWave(results);
            }
            run.err()
                .printf(
                    Locale.ROOT,
                    "[%s] llm wave: %d call(s) in %.1f s (%.1f req/s), saved to llm_calls in %.1f"
                        + " s%n",
                    run.job(),
                    totals[0],
                    callSeconds,
                    totals[0] / Math.max(callSeconds, 1e-3),
                    (System.nanoTime() - waveStart) / 1e9 - callSeconds);
            results.unpersist();
          }
          CrashPoints.reach(CrashPoints.Point.WAVE_MERGED);
          deleteJournal(journal);
          called += totals[0];
          failed += totals[1];
          tokensIn += totals[2];
          tokensOut += totals[3];
          offset += wave;
        }
      }
      long left = toCall - called;
      boolean goalMet = goal != null && goalNow >= goal.target();
      long deferred = goalMet ? 0 : left;
      if (deferred > 0) {
        run.err()
            .printf(
                Locale.ROOT,
                "[%s] llm.max_total_tokens %d reached after %d tokens: %d request(s) deferred to the"
                    + " next run; everything done so far is kept%n",
                run.job(),
                config.maxTotalTokens(),
                tokensIn + tokensOut,
                deferred);
      }
      return new Outcome(
          requested,
          requested - toCall,
          called,
          failed,
          deferred,
          tokensIn,
          tokensOut,
          callSecondsTotal,
          cost(tokensIn, tokensOut),
          goalMet ? left : 0,
          goalNow);
    } finally {
      keys.unpersist();
    }
  }

  /** For each requested key: its status, response text and error, from {@code llm_calls}. */
  public Dataset<Row> responses(Dataset<Row> requests) {
    Dataset<Row> calls =
        run.warehouse().read("llm_calls").select("call_key", "status", "response_text", "error");
    return requests.join(
        calls, scala.collection.JavaConverters.asScalaBuffer(List.of("call_key")).toSeq(), "left");
  }

  /** Estimated cost in US dollars of these tokens, from {@code llm.prices}. */
  private double cost(long tokensIn, long tokensOut) {
    LlmConfig.Price price =
        config.prices() == null ? null : config.prices().get(config.client().model());
    if (price == null) {
      return 0;
    }
    return tokensIn / 1e6 * price.inputPerMillion() + tokensOut / 1e6 * price.outputPerMillion();
  }

  /** The LLM accounting every job that calls a model records in {@code runs.counts}. */
  public static Map<String, Long> details(Outcome outcome) {
    Map<String, Long> details = new LinkedHashMap<>();
    details.put("llm.requests", outcome.requested());
    details.put("llm.cached", outcome.cached());
    details.put("llm.called", outcome.called());
    details.put("llm.failed", outcome.failed());
    details.put("llm.deferred_by_budget", outcome.deferredByBudget());
    details.put("llm.deferred_by_target", outcome.deferredByTarget());
    details.put("llm.tokens_in", outcome.tokensIn());
    details.put("llm.tokens_out", outcome.tokensOut());
    details.put("llm.cost_usd_micros", Math.round(outcome.costUsd() * 1e6));
    return details;
  }

  private long waveSize(long remaining, long calledSoFar, long tokensSoFar, long budgetLeft) {
    if (config.maxTotalTokens() == 0) {
      return remaining;
    }
    // Before any call, probe with a small wave; afterwards size the wave to the budget at the
    // observed rate.
    long probe = Math.max(1, config.client().maxConcurrency());
    long wave =
        calledSoFar == 0 ? probe : Math.max(1, budgetLeft / Math.max(1, tokensSoFar / calledSoFar));
    return Math.min(remaining, wave);
  }

  /**
   * The wave that should just reach the goal at the rate seen so far in this run (goal units per
   * call); a probe of {@code max_concurrency} calls before any, and double the calls so far while
   * none has made progress.
   */
  private long goalWave(long remaining, long calledSoFar, long progressSoFar, long goalLeft) {
    long probe = Math.max(1, config.client().maxConcurrency());
    long wave;
    if (calledSoFar == 0) {
      wave = probe;
    } else if (progressSoFar <= 0) {
      wave = Math.max(probe, 2 * calledSoFar);
    } else {
      wave = (long) Math.ceil(goalLeft / ((double) progressSoFar / calledSoFar));
    }
    return Math.max(1, Math.min(remaining, wave));
  }

  private String journalRoot() {
    return run.warehouse().root() + "/_journal/llm_calls";
  }

  /**
   * Folds the journals of earlier runs (a run killed before its merge) into {@code llm_calls}:
   * their successes count as done, so no paid response is asked for again. A success already in the
   * table is never replaced by a failure.
   */
  private void recoverJournals() {
    SparkSession spark = run.spark();
    List<String> dirs = new ArrayList<>();
    try {
      Path root = new Path(journalRoot());
      FileSystem fs = root.getFileSystem(spark.sparkContext().hadoopConfiguration());
      if (!fs.exists(root)) {
        return;
      }
      for (FileStatus status : fs.listStatus(root)) {
        if (status.isDirectory() && !status.getPath().getName().equals(run.runId())) {
          dirs.add(status.getPath().toString());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list the call journal", e);
    }
    if (dirs.isEmpty()) {
      return;
    }
    Dataset<Row> journaled =
        spark
            .read()
            .schema(contract.schema())
            .option("mode", "DROPMALFORMED")
            .json(dirs.stream().map(d -> d + "/*.jsonl").toArray(String[]::new))
            .filter(col("call_key").isNotNull().and(col("status").isNotNull()));
    Dataset<Row> best =
        journaled
            .withColumn(
                "_succeeded", when(col("status").equalTo(LlmCallRows.SUCCEEDED), 1).otherwise(0))
            .withColumn(
                "_rank",
                row_number()
                    .over(
                        Window.partitionBy("call_key")
                            .orderBy(desc("_succeeded"), desc("called_at"))))
            .filter(col("_rank").equalTo(1))
            .drop("_rank", "_succeeded");
    Dataset<Row> alreadySucceeded =
        run.warehouse()
            .read("llm_calls")
            .filter(col("status").equalTo(LlmCallRows.SUCCEEDED))
            .select("call_key");
    Dataset<Row> recovered =
        best.join(
                alreadySucceeded,
                scala.collection.JavaConverters.asScalaBuffer(List.of("call_key")).toSeq(),
                "left_anti")
            .persist(StorageLevel.MEMORY_AND_DISK());
    long count = recovered.count();
    run.warehouse().upsert(contract, recovered);
    recovered.unpersist();
    run.err()
        .printf(
            Locale.ROOT,
            "[%s] recovered %d call(s) from the journal of %d earlier run(s)%n",
            run.job(),
            count,
            dirs.size());
    dirs.forEach(this::deleteJournal);
  }

  private void deleteJournal(String dir) {
    try {
      Path path = new Path(dir);
      path.getFileSystem(run.spark().sparkContext().hadoopConfiguration()).delete(path, true);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete the call journal " + dir, e);
    }
  }
}
