package dev.infuse.jobs.report;

import dev.infuse.jobs.contract.Contracts;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * A small evaluation warehouse with the agreed schemas of scores, score_comparisons, scaling_fits,
 * retrieval_recall, discussion_scores and runs, written as plain Delta tables (the jobs that own
 * those tables write them through their contracts; the report only reads). It has an older score
 * run and an older retrieve run that a default report must leave out, and text that must be
 * escaped.
 */
public final class ReportFixtures {
  public static final String OLD_SCORE_RUN = "score-20260101-000000-0000aa";
  public static final String SCORE_RUN = "score-20260102-000000-0000bb";
  public static final String OLD_RETRIEVE_RUN = "retrieve-20260101-000000-0000cc";
  public static final String RETRIEVE_RUN = "retrieve-20260102-000000-0000dd";

  /** A model name a report must escape, never execute. */
  public static final String NASTY_MODEL = "tiny<script>alert(\"x\")</script>&'co'";

  /**
   * (setting, predictions run, value, ci_low, ci_high, synthetic tokens) on quality / all /
   * accuracy, n = 64.
   */
  public static final List<Object[]> SCORES =
      List.of(
          new Object[] {"closed_book", "answer-cb", 0.3125, 0.2031, 0.4219, null},
          new Object[] {"rag", "answer-rag", 0.5, 0.375, 0.625, null},
          new Object[] {"trained", "answer-t5", 0.35, 0.2344, 0.4688, 100_000L},
          new Object[] {"trained", "answer-t6", 0.4375, 0.3125, 0.5625, 1_000_000L},
          new Object[] {"trained", "answer-t7", 0.52, 0.4, 0.64, 10_000_000L},
          new Object[] {"trained_rag", "answer-trag", 0.5625, 0.4375, 0.6875, 1_000_000L});

  public static final double DIFFICULT_RAG = 0.4211;

  /** The least-squares fit of the three trained runs, rounded: accuracy = a + b ln(tokens). */
  public static final double INTERCEPT = -0.0742;

  public static final double SLOPE = 0.0369;
  public static final double SLOPE_SE = 0.0006;
  public static final double R2 = 0.9997;
  public static final double BASELINE = 0.5;
  public static final double CROSSOVER = Math.exp((BASELINE - INTERCEPT) / SLOPE);

  /** (retriever, k, recall, hits) of the latest retrieve run, n = 10. */
  public static final List<Object[]> RECALL =
      List.of(
          new Object[] {"bm25", 1, 0.4, 4L},
          new Object[] {"bm25", 5, 0.8, 8L},
          new Object[] {"bm25", 10, 0.9, 9L},
          new Object[] {"dense", 1, 0.3, 3L},
          new Object[] {"dense", 5, 0.7, 7L},
          new Object[] {"dense", 10, 1.0, 10L});

  public static final String DISCUSS_RUN = "discuss-20260101-120000-0000ee";

  /** An agent id a report must escape. */
  public static final String NASTY_AGENT = "agent<1>&";

  /**
   * discussion_scores of the latest score run, pivoted: (discussion id, iteration, turn, majority
   * accuracy, accuracy, consensus, improve, decline, persuasion events, agent-0 accuracy,
   * NASTY_AGENT accuracy) on gsm8k, 8 questions; turn 0 has no change ratios.
   */
  public static final List<Object[]> DISCUSSIONS =
      List.of(
          new Object[] {"maporl-a", null, 0, 0.5, 0.4375, 0.25, null, null, null, 0.5, 0.375},
          new Object[] {"maporl-a", null, 1, 0.625, 0.5625, 0.5, 0.1875, 0.0625, 2.0, 0.625, 0.5},
          new Object[] {"maporl-a", null, 2, 0.75, 0.6875, 0.75, 0.125, 0.0, 1.0, 0.75, 0.625},
          new Object[] {"maporl-co", 1, 0, 0.625, 0.5, 0.375, null, null, null, 0.5, 0.5},
          new Object[] {"maporl-co", 1, 1, 0.875, 0.8125, 0.875, 0.3125, 0.0, 3.0, 0.875, 0.75});

  private ReportFixtures() {}

  /** Writes every table into {@code warehouse}. */
  public static void write(SparkSession spark, Path warehouse) {
    writeScores(spark, warehouse);
    writeComparisons(spark, warehouse);
    writeFits(spark, warehouse);
    writeRecall(spark, warehouse);
    writeDiscussions(spark, warehouse);
    writeBehavior(spark, warehouse);
    writeRuns(spark, warehouse);
  }

  /** Two behaviour answer runs of a mine-hard panel, scored on all their tasks and on Hard. */
  public static final String BEHAVIOR_RUN_A = "answer-20260101-130000-0000b1";

  public static final String BEHAVIOR_RUN_B = "answer-20260101-140000-0000b2";

  /** (run, subset, metric, value, n) of behavior_scores. */
  public static final List<Object[]> BEHAVIOR =
      List.of(
          new Object[] {BEHAVIOR_RUN_A, "all", "accuracy", 0.7, 40L},
          new Object[] {BEHAVIOR_RUN_A, "types", "macro_f1", 0.6, 40L},
          new Object[] {BEHAVIOR_RUN_A, "categories", "macro_f1", 0.5, 40L},
          new Object[] {BEHAVIOR_RUN_A, "restraint_tasks", "over_proactivity", 0.1, 10L},
          new Object[] {BEHAVIOR_RUN_A, "proactive_tasks", "under_proactivity", 0.25, 20L},
          new Object[] {BEHAVIOR_RUN_A, "correct_flags", "content_accuracy", 0.9, 15L},
          new Object[] {BEHAVIOR_RUN_A, "medec", "medec_error_flag_accuracy", 0.75, 8L},
          new Object[] {BEHAVIOR_RUN_A, "category=restraint", "f1", 0.8, 10L},
          new Object[] {BEHAVIOR_RUN_A, "hard/types", "macro_f1", 0.2, 12L},
          new Object[] {BEHAVIOR_RUN_A, "hard/categories", "macro_f1", 0.1, 12L},
          new Object[] {BEHAVIOR_RUN_B, "all", "accuracy", 0.5, 40L},
          new Object[] {BEHAVIOR_RUN_B, "types", "macro_f1", 0.4, 40L},
          new Object[] {BEHAVIOR_RUN_B, "categories", "macro_f1", 0.3, 40L},
          new Object[] {BEHAVIOR_RUN_B, "category=restraint", "f1", 0.6, 10L},
          new Object[] {BEHAVIOR_RUN_B, "hard/types", "macro_f1", 0.0, 12L});

  public static void writeBehavior(SparkSession spark, Path warehouse) {
    List<Row> rows = new ArrayList<>();
    for (Object[] b : BEHAVIOR) {
      rows.add(
          RowFactory.create(
              b[0], b[1], b[2], b[3], b[4], "openai:m-" + b[0], "token@1,rule@1", SCORE_RUN));
    }
    save(spark, warehouse, "behavior_scores", Contracts.load("behavior_scores").schema(), rows);
  }

  /** {@link #DISCUSSIONS} as discussion_scores rows, and one of an older score run. */
  public static void writeDiscussions(SparkSession spark, Path warehouse) {
    String[] metrics = {
      "majority_accuracy",
      "accuracy",
      "consensus_rate",
      "improve_ratio",
      "decline_ratio",
      "persuasion_events"
    };
    List<Row> rows = new ArrayList<>();
    for (Object[] d : DISCUSSIONS) {
      for (int m = 0; m < metrics.length; m++) {
        if (d[3 + m] != null) {
          rows.add(discussionRow(SCORE_RUN, d, "all", metrics[m], (Double) d[3 + m]));
        }
      }
      rows.add(discussionRow(SCORE_RUN, d, "agent-0", "accuracy", (Double) d[9]));
      rows.add(discussionRow(SCORE_RUN, d, NASTY_AGENT, "accuracy", (Double) d[10]));
    }
    rows.add(
        discussionRow(
            OLD_SCORE_RUN,
            new Object[] {"maporl-old", null, 0},
            "all",
            "majority_accuracy",
            0.0123));
    save(spark, warehouse, "discussion_scores", Contracts.load("discussion_scores").schema(), rows);
  }

  private static Row discussionRow(
      String scoreRun, Object[] d, String agent, String metric, double value) {
    return RowFactory.create(
        scoreRun, d[0], DISCUSS_RUN, "gsm8k", d[1], d[2], agent, metric, value, 8L);
  }

  public static void writeScores(SparkSession spark, Path warehouse) {
    StructType schema =
        schema(
            "run_id string",
            "benchmark string",
            "subset string",
            "setting string",
            "model string",
            "metric string",
            "value double",
            "n bigint",
            "ci_low double",
            "ci_high double",
            "synthetic_tokens bigint",
            "config_hash string",
            "prompt_versions array<string>",
            "git_sha string",
            "score_run_id string");
    List<Row> rows = new ArrayList<>();
    for (Object[] s : SCORES) {
      String model = s[0].equals("rag") ? NASTY_MODEL : "tiny";
      rows.add(
          RowFactory.create(
              s[1],
              "quality",
              "all",
              s[0],
              model,
              "accuracy",
              s[2],
              64L,
              s[3],
              s[4],
              s[5],
              "hash-" + s[1],
              List.of("quality-mcq@1"),
              "abc1234",
              SCORE_RUN));
    }
    rows.add(
        RowFactory.create(
            "answer-rag",
            "quality",
            "difficult",
            "rag",
            NASTY_MODEL,
            "accuracy",
            DIFFICULT_RAG,
            19L,
            0.2105,
            0.6316,
            null,
            "hash-answer-rag",
            List.of("quality-mcq@1"),
            "abc1234",
            SCORE_RUN));
    // An older scoring of an older predictions run: a default report leaves it out.
    rows.add(
        RowFactory.create(
            "answer-old",
            "quality",
            "all",
            "rag",
            "tiny",
            "accuracy",
            0.1111,
            64L,
            0.05,
            0.2,
            null,
            "hash-old",
            List.of("quality-mcq@0"),
            "0ld0000",
            OLD_SCORE_RUN));
    save(spark, warehouse, "scores", schema, rows);
  }

  public static void writeComparisons(SparkSession spark, Path warehouse) {
    StructType schema =
        schema(
            "run_id_a string",
            "run_id_b string",
            "benchmark string",
            "subset string",
            "setting_a string",
            "setting_b string",
            "metric string",
            "n bigint",
            "value_a double",
            "value_b double",
            "diff double",
            "ci_low double",
            "ci_high double",
            "p_value double",
            "score_run_id string");
    save(
        spark,
        warehouse,
        "score_comparisons",
        schema,
        List.of(
            RowFactory.create(
                "answer-rag",
                "answer-trag",
                "quality",
                "all",
                "rag",
                "trained_rag",
                "accuracy",
                64L,
                0.5,
                0.5625,
                0.0625,
                -0.0313,
                0.1563,
                0.218,
                SCORE_RUN),
            RowFactory.create(
                "answer-cb",
                "answer-t6",
                "quality",
                "all",
                "closed_book",
                "trained",
                "accuracy",
                64L,
                0.3125,
                0.4375,
                0.125,
                0.0469,
                0.2031,
                0.00004,
                SCORE_RUN)));
  }

  public static void writeFits(SparkSession spark, Path warehouse) {
    StructType point = schema("run_id string", "tokens bigint", "value double");
    StructType schema =
        schema(
                "fit_id string",
                "benchmark string",
                "setting string",
                "metric string",
                "n_points int",
                "intercept double",
                "slope double",
                "slope_se double",
                "r2 double",
                "baseline_setting string",
                "baseline_value double",
                "crossover_tokens double")
            .add("points", DataTypes.createArrayType(point))
            .add("score_run_id", DataTypes.StringType);
    List<Row> points = new ArrayList<>();
    for (Object[] s : SCORES) {
      if (s[0].equals("trained")) {
        points.add(RowFactory.create(s[1], s[5], s[2]));
      }
    }
    save(
        spark,
        warehouse,
        "scaling_fits",
        schema,
        List.of(
            RowFactory.create(
                "quality/trained/accuracy",
                "quality",
                "trained",
                "accuracy",
                3,
                INTERCEPT,
                SLOPE,
                SLOPE_SE,
                R2,
                "rag",
                BASELINE,
                CROSSOVER,
                points,
                SCORE_RUN)));
  }

  public static void writeRecall(SparkSession spark, Path warehouse) {
    StructType schema =
        schema(
            "run_id string",
            "benchmark string",
            "retriever string",
            "k int",
            "recall double",
            "hits bigint",
            "n bigint");
    List<Row> rows = new ArrayList<>();
    for (Object[] r : RECALL) {
      rows.add(RowFactory.create(RETRIEVE_RUN, "quality", r[0], r[1], r[2], r[3], 10L));
    }
    rows.add(RowFactory.create(OLD_RETRIEVE_RUN, "quality", "bm25", 5, 0.1, 1L, 10L));
    save(spark, warehouse, "retrieval_recall", schema, rows);
  }

  public static void writeRuns(SparkSession spark, Path warehouse) {
    List<Row> rows = new ArrayList<>();
    rows.add(
        run(
            "answer-cb",
            "answer",
            "2026-01-01T10:00:00Z",
            "{\"answer\":{\"setting\":\"closed_book\"}}"));
    rows.add(
        run(
            "answer-rag",
            "answer",
            "2026-01-01T10:01:00Z",
            "{\"note\":\"</pre><script>alert(1)</script>\"}"));
    rows.add(run(OLD_SCORE_RUN, "score", "2026-01-01T00:00:00Z", "{}"));
    rows.add(run(SCORE_RUN, "score", "2026-01-02T00:00:00Z", "{\"score\":{\"bootstrap\":1000}}"));
    rows.add(run(DISCUSS_RUN, "discuss", "2026-01-01T12:00:00Z", "{\"discuss\":{\"agents\":2}}"));
    rows.add(run(BEHAVIOR_RUN_A, "answer", "2026-01-01T13:00:00Z", "{}"));
    rows.add(run(BEHAVIOR_RUN_B, "answer", "2026-01-01T14:00:00Z", "{}"));
    rows.add(run(OLD_RETRIEVE_RUN, "retrieve", "2026-01-01T00:00:00Z", "{}"));
    rows.add(run(RETRIEVE_RUN, "retrieve", "2026-01-02T00:00:00Z", "{\"retrieve\":{\"k\":10}}"));
    save(spark, warehouse, "runs", Contracts.load("runs").schema(), rows);
  }

  private static Row run(String id, String job, String started, String config) {
    Timestamp at = Timestamp.from(Instant.parse(started));
    return RowFactory.create(
        id,
        job,
        "succeeded",
        "hash-" + id,
        config,
        "abc1234",
        "0.1.0-SNAPSHOT",
        "3.5.9",
        at,
        at,
        1L,
        1L,
        0L,
        dev.infuse.jobs.spark.SparkRows.map(Map.<String, Long>of()),
        null);
  }

  private static void save(
      SparkSession spark, Path warehouse, String table, StructType schema, List<Row> rows) {
    spark
        .createDataFrame(rows, schema)
        .write()
        .format("delta")
        .mode("append")
        .save(warehouse.resolve(table).toAbsolutePath().toString());
  }

  private static StructType schema(String... columns) {
    StructType schema = new StructType();
    for (String column : columns) {
      String[] parts = column.split(" ", 2);
      schema = schema.add(parts[0], DataType.fromDDL(parts[1]));
    }
    return schema;
  }

  /** The fixture's scores as (setting, predictions run) to value, for assertions. */
  public static Map<String, Double> valueByRun() {
    Map<String, Double> values = new java.util.LinkedHashMap<>();
    SCORES.forEach(s -> values.put((String) s[1], (Double) s[2]));
    return values;
  }
}
