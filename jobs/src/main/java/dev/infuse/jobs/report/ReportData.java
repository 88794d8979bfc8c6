package dev.infuse.jobs.report;

import static org.apache.spark.sql.functions.col;

import dev.infuse.jobs.io.Warehouse;
import dev.infuse.jobs.score.FitScalingJob;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * What a report shows, read from the warehouse into plain values on the driver: evaluation tables
 * are small (one row per run, benchmark, subset, setting and metric), so nothing here needs to stay
 * distributed.
 *
 * <p>Any table may be missing, empty, or lack a column of the agreed schema; then {@link #notes}
 * says why and the report shows that instead of failing.
 */
public record ReportData(
    List<String> scoreRuns,
    List<Score> scores,
    List<Comparison> comparisons,
    List<ScalingFit> fits,
    List<Recall> recall,
    List<RunInfo> runs,
    List<String> runsNotFound,
    List<RagRecipes.Recipe> ragRecipes,
    Map<String, String> notes,
    List<DiscussionTurn> discussions,
    List<BehaviorRuns.Run> behavior) {

  public static final String ALL = "all";

  /** At most this many discussions get a per-turn chart; the table shows them all. */
  public static final int MAX_DISCUSSION_CHARTS = 12;

  /** The metrics of discussion_scores' group rows (agent_id 'all'), in the order shown. */
  public static final List<String> DISCUSSION_METRICS =
      List.of(
          "majority_accuracy",
          "accuracy",
          "consensus_rate",
          "improve_ratio",
          "decline_ratio",
          "no_change_ratio",
          "persuasion_events",
          "persuasions_to_correct",
          "majority_improved",
          "majority_declined");

  /** A report without behaviour runs. */
  public ReportData(
      List<String> scoreRuns,
      List<Score> scores,
      List<Comparison> comparisons,
      List<ScalingFit> fits,
      List<Recall> recall,
      List<RunInfo> runs,
      List<String> runsNotFound,
      List<RagRecipes.Recipe> ragRecipes,
      Map<String, String> notes,
      List<DiscussionTurn> discussions) {
    this(
        scoreRuns,
        scores,
        comparisons,
        fits,
        recall,
        runs,
        runsNotFound,
        ragRecipes,
        notes,
        discussions,
        List.of());
  }

  /** A report without discussions or behaviour runs. */
  public ReportData(
      List<String> scoreRuns,
      List<Score> scores,
      List<Comparison> comparisons,
      List<ScalingFit> fits,
      List<Recall> recall,
      List<RunInfo> runs,
      List<String> runsNotFound,
      List<RagRecipes.Recipe> ragRecipes,
      Map<String, String> notes) {
    this(
        scoreRuns,
        scores,
        comparisons,
        fits,
        recall,
        runs,
        runsNotFound,
        ragRecipes,
        notes,
        List.of(),
        List.of());
  }

  /**
   * One turn of one scored discussion: the rows of {@code discussion_scores} for a score run,
   * discussion and turn, pivoted.
   *
   * @param questions n of the group's majority_accuracy (the questions discussed), 0 when absent
   * @param metrics the group's metrics (agent_id 'all') by name
   * @param agentAccuracy each agent's accuracy at this turn, by agent id
   */
  public record DiscussionTurn(
      String scoreRunId,
      String discussionId,
      String discussRunId,
      String benchmark,
      Integer iteration,
      int turn,
      long questions,
      Map<String, Double> metrics,
      Map<String, Double> agentAccuracy) {

    /** The group's metric {@code name}, or null when this turn has none. */
    public Double metric(String name) {
      return metrics.get(name);
    }

    /** The discussion this turn belongs to: its score run and discussion id. */
    public List<String> discussion() {
      return List.of(scoreRunId, discussionId);
    }

    /** What the discussion is, in words: benchmark, id, and iteration when co-trained. */
    public String label() {
      return benchmark
          + ": discussion "
          + discussionId
          + (iteration == null ? "" : " (iteration " + iteration + ")");
    }
  }

  /** A row of {@code scores}. */
  public record Score(
      String runId,
      String benchmark,
      String subset,
      String setting,
      String model,
      String metric,
      double value,
      long n,
      Double ciLow,
      Double ciHigh,
      Long syntheticTokens,
      String configHash,
      List<String> promptVersions,
      String gitSha,
      String scoreRunId) {

    /** The same row with its setting shown as {@code setting} (a rag setting with its recipe). */
    Score withSetting(String shown) {
      return new Score(
          runId,
          benchmark,
          subset,
          shown,
          model,
          metric,
          value,
          n,
          ciLow,
          ciHigh,
          syntheticTokens,
          configHash,
          promptVersions,
          gitSha,
          scoreRunId);
    }
  }

  /** A row of {@code score_comparisons}: b - a on the same questions. */
  public record Comparison(
      String runIdA,
      String runIdB,
      String benchmark,
      String subset,
      String settingA,
      String settingB,
      String metric,
      long n,
      double valueA,
      double valueB,
      double diff,
      Double ciLow,
      Double ciHigh,
      Double pValue,
      String scoreRunId) {

    /** The same row with its settings shown as given (rag settings with their recipe). */
    Comparison withSettings(String shownA, String shownB) {
      return new Comparison(
          runIdA,
          runIdB,
          benchmark,
          subset,
          shownA,
          shownB,
          metric,
          n,
          valueA,
          valueB,
          diff,
          ciLow,
          ciHigh,
          pValue,
          scoreRunId);
    }
  }

  /** One run of a scaling sweep. */
  public record Point(String runId, long tokens, double value) {}

  /**
   * A row of {@code scaling_fits}: metric = intercept + slope * ln(tokens).
   *
   * @param generator the generator of every point; null when unknown
   * @param tokenCount what tokens counts: unique, seen, or written (the fallback, and what a table
   *     written before the column existed holds)
   * @param countTokenizer the tokenizer unique and seen count in; null for written
   */
  public record ScalingFit(
      String fitId,
      String benchmark,
      String setting,
      String metric,
      int nPoints,
      double intercept,
      double slope,
      Double slopeSe,
      Double r2,
      String baselineSetting,
      Double baselineValue,
      Double crossoverTokens,
      List<Point> points,
      String scoreRunId,
      String generator,
      String tokenCount,
      String countTokenizer,
      String subset,
      String label) {

    /** A fit of subset all with no label (the only kind before scaling_fits v2). */
    public ScalingFit(
        String fitId,
        String benchmark,
        String setting,
        String metric,
        int nPoints,
        double intercept,
        double slope,
        Double slopeSe,
        Double r2,
        String baselineSetting,
        Double baselineValue,
        Double crossoverTokens,
        List<Point> points,
        String scoreRunId,
        String generator,
        String tokenCount,
        String countTokenizer) {
      this(
          fitId,
          benchmark,
          setting,
          metric,
          nPoints,
          intercept,
          slope,
          slopeSe,
          r2,
          baselineSetting,
          baselineValue,
          crossoverTokens,
          points,
          scoreRunId,
          generator,
          tokenCount,
          countTokenizer,
          "all",
          null);
    }

    /**
     * How a chart's legend tells this fit from others: its label when it has one, else its
     * generator.
     */
    public String name() {
      if (label != null) {
        return label;
      }
      return generator == null ? "unknown generator" : generator;
    }

    /** A fit without a generator, on tokens written to the shards. */
    public ScalingFit(
        String fitId,
        String benchmark,
        String setting,
        String metric,
        int nPoints,
        double intercept,
        double slope,
        Double slopeSe,
        Double r2,
        String baselineSetting,
        Double baselineValue,
        Double crossoverTokens,
        List<Point> points,
        String scoreRunId) {
      this(
          fitId,
          benchmark,
          setting,
          metric,
          nPoints,
          intercept,
          slope,
          slopeSe,
          r2,
          baselineSetting,
          baselineValue,
          crossoverTokens,
          points,
          scoreRunId,
          null,
          FitScalingJob.WRITTEN,
          null);
    }

    /** What the x-axis counts, in words (and in which tokenizer). */
    public String axis() {
      return FitScalingJob.axisName(tokenCount, countTokenizer);
    }

    /** The fitted metric at {@code tokens}. */
    public double predict(double tokens) {
      return intercept + slope * Math.log(tokens);
    }

    /** The same fit with its setting and baseline shown as given (with their recipe). */
    ScalingFit withSettings(String shown, String shownBaseline) {
      return new ScalingFit(
          fitId,
          benchmark,
          shown,
          metric,
          nPoints,
          intercept,
          slope,
          slopeSe,
          r2,
          shownBaseline,
          baselineValue,
          crossoverTokens,
          points,
          scoreRunId,
          generator,
          tokenCount,
          countTokenizer,
          subset,
          label);
    }
  }

  /** A row of {@code retrieval_recall}. */
  public record Recall(
      String runId, String benchmark, String retriever, int k, double recall, long hits, long n) {}

  /** A row of {@code runs}, the parts a report shows. */
  public record RunInfo(
      String runId,
      String job,
      String status,
      String configHash,
      String configJson,
      String gitSha,
      String infuseVersion,
      String sparkVersion,
      Instant startedAt,
      Instant endedAt,
      Map<String, Long> counts) {}

  static final List<String> SCORE_COLUMNS =
      List.of(
          "run_id",
          "benchmark",
          "subset",
          "setting",
          "model",
          "metric",
          "value",
          "n",
          "ci_low",
          "ci_high",
          "synthetic_tokens",
          "config_hash",
          "prompt_versions",
          "git_sha",
          "score_run_id");
  static final List<String> COMPARISON_COLUMNS =
      List.of(
          "run_id_a",
          "run_id_b",
          "benchmark",
          "subset",
          "setting_a",
          "setting_b",
          "metric",
          "n",
          "value_a",
          "value_b",
          "diff",
          "ci_low",
          "ci_high",
          "p_value",
          "score_run_id");
  static final List<String> FIT_COLUMNS =
      List.of(
          "fit_id",
          "benchmark",
          "setting",
          "metric",
          "n_points",
          "intercept",
          "slope",
          "slope_se",
          "r2",
          "baseline_setting",
          "baseline_value",
          "crossover_tokens",
          "points",
          "score_run_id");
  static final List<String> RECALL_COLUMNS =
      List.of("run_id", "benchmark", "retriever", "k", "recall", "hits", "n");
  static final List<String> RUN_COLUMNS =
      List.of(
          "run_id",
          "job",
          "status",
          "config_hash",
          "config_json",
          "git_sha",
          "infuse_version",
          "spark_version",
          "started_at",
          "ended_at");

  static final List<String> DISCUSSION_COLUMNS =
      List.of(
          "score_run_id",
          "discussion_id",
          "discuss_run_id",
          "benchmark",
          "iteration",
          "turn",
          "agent_id",
          "metric",
          "value",
          "n");

  /** Rows read, per table, for the run's counts (a discussion turn counts once). */
  public long rowsRead() {
    return scores.size()
        + comparisons.size()
        + fits.size()
        + recall.size()
        + runs.size()
        + discussions.size()
        + behavior.size();
  }

  /** Reads what {@code config} selects from {@code warehouse}. */
  public static ReportData load(Warehouse warehouse, ReportConfig config) {
    Map<String, String> notes = new LinkedHashMap<>();
    Dataset<Row> runsTable = table(warehouse, "runs", RUN_COLUMNS, notes);
    Map<String, Instant> started = new HashMap<>();
    if (runsTable != null) {
      for (Row row : runsTable.select("run_id", "started_at").collectAsList()) {
        Timestamp at = row.getTimestamp(1);
        started.put(row.getString(0), at == null ? null : at.toInstant());
      }
    }
    Comparator<String> byStart =
        Comparator.comparing(
                (String id) -> started.getOrDefault(id, null),
                Comparator.nullsFirst(Comparator.naturalOrder()))
            .thenComparing(Comparator.naturalOrder());

    Dataset<Row> scoresTable = table(warehouse, "scores", SCORE_COLUMNS, notes);
    Dataset<Row> comparisonsTable =
        table(warehouse, "score_comparisons", COMPARISON_COLUMNS, notes);
    Dataset<Row> fitsTable = table(warehouse, "scaling_fits", FIT_COLUMNS, notes);
    Dataset<Row> recallTable = table(warehouse, "retrieval_recall", RECALL_COLUMNS, notes);
    Dataset<Row> discussionsTable =
        table(warehouse, "discussion_scores", DISCUSSION_COLUMNS, notes);

    List<String> scoreRuns =
        selectScoreRuns(
            config.scoreRuns(),
            byStart,
            java.util.Arrays.asList(scoresTable, comparisonsTable, fitsTable, discussionsTable));
    List<Score> scores =
        rows(filterScoreRuns(scoresTable, config.scoreRuns(), scoreRuns), ReportData::score);
    List<Comparison> comparisons =
        rows(
            filterScoreRuns(comparisonsTable, config.scoreRuns(), scoreRuns),
            ReportData::comparison);
    List<ScalingFit> fits =
        rows(filterScoreRuns(fitsTable, config.scoreRuns(), scoreRuns), ReportData::fit);
    List<DiscussionTurn> discussions =
        discussionTurns(filterScoreRuns(discussionsTable, config.scoreRuns(), scoreRuns));
    List<Recall> recall =
        selectRecall(rows(recallTable, ReportData::recall), config.retrieveRuns(), byStart);

    recall.sort(
        Comparator.comparing(Recall::benchmark)
            .thenComparing(Recall::retriever)
            .thenComparingInt(Recall::k)
            .thenComparing(Recall::runId));

    // The runs behind every number shown: the score runs, the runs they scored, and the retrieve
    // runs.
    Set<String> involved = new LinkedHashSet<>(scoreRuns);
    scores.forEach(s -> involved.add(s.runId()));
    comparisons.forEach(
        c -> {
          involved.add(c.runIdA());
          involved.add(c.runIdB());
        });
    fits.forEach(f -> f.points().forEach(p -> involved.add(p.runId())));
    recall.forEach(r -> involved.add(r.runId()));
    discussions.forEach(d -> involved.add(d.discussRunId()));
    List<BehaviorRuns.Run> behavior = BehaviorRuns.load(warehouse, config.behaviorRuns(), notes);
    behavior.forEach(b -> involved.add(b.runId()));
    involved.remove(null);
    List<RunInfo> runs = new ArrayList<>();
    if (runsTable != null && !involved.isEmpty()) {
      runs = rows(runsTable.filter(col("run_id").isin(involved.toArray())), ReportData::run);
      runs.sort(
          Comparator.comparing(RunInfo::startedAt, Comparator.nullsFirst(Comparator.naturalOrder()))
              .thenComparing(RunInfo::runId));
    }
    // Rag settings are shown with their recipe when the report holds another than the default.
    RagRecipes recipes = RagRecipes.of(runs);
    scores =
        new ArrayList<>(
            scores.stream()
                .map(s -> s.withSetting(recipes.label(s.runId(), s.setting())))
                .toList());
    comparisons =
        new ArrayList<>(
            comparisons.stream()
                .map(
                    c ->
                        c.withSettings(
                            recipes.label(c.runIdA(), c.settingA()),
                            recipes.label(c.runIdB(), c.settingB())))
                .toList());
    fits =
        new ArrayList<>(
            fits.stream()
                .map(
                    f -> {
                      String point = f.points().isEmpty() ? null : f.points().get(0).runId();
                      return f.withSettings(
                          recipes.label(point, f.setting()),
                          f.baselineSetting() == null
                              ? null
                              : recipes.label(point, f.baselineSetting()));
                    })
                .toList());
    scores.sort(
        Comparator.comparing(Score::benchmark)
            .thenComparing(Score::metric)
            .thenComparing(Score::subset)
            .thenComparing(s -> Settings.order(s.setting()))
            .thenComparing(Score::setting)
            .thenComparing(s -> s.syntheticTokens() == null ? -1 : s.syntheticTokens())
            .thenComparing(Score::runId));
    comparisons.sort(
        Comparator.comparing(Comparison::benchmark)
            .thenComparing(Comparison::metric)
            .thenComparing(Comparison::subset)
            .thenComparing(Comparison::settingA)
            .thenComparing(Comparison::settingB));
    fits.sort(
        Comparator.comparing(ScalingFit::benchmark)
            .thenComparing(ScalingFit::setting)
            .thenComparing(ScalingFit::metric)
            .thenComparing(ScalingFit::fitId));
    Set<String> found = new TreeSet<>();
    runs.forEach(r -> found.add(r.runId()));
    List<String> notFound = involved.stream().filter(id -> !found.contains(id)).sorted().toList();

    emptyNote(notes, "scores", scores, scoresTable);
    emptyNote(notes, "score_comparisons", comparisons, comparisonsTable);
    emptyNote(notes, "scaling_fits", fits, fitsTable);
    emptyNote(notes, "retrieval_recall", recall, recallTable);
    emptyNote(notes, "discussion_scores", discussions, discussionsTable);
    String capped = discussionChartsNote(discussions);
    if (capped != null) {
      notes.put("discussion_scores.charts", capped);
    }
    noEvidenceNote(warehouse, notes, scores, recall);
    return new ReportData(
        scoreRuns,
        scores,
        comparisons,
        fits,
        recall,
        runs,
        notFound,
        recipes.recipes(),
        notes,
        discussions,
        behavior);
  }

  /** The discussions in report order, one entry per (score run, discussion). */
  public static Map<List<String>, List<DiscussionTurn>> byDiscussion(List<DiscussionTurn> turns) {
    Map<List<String>, List<DiscussionTurn>> out = new LinkedHashMap<>();
    turns.forEach(t -> out.computeIfAbsent(t.discussion(), k -> new ArrayList<>()).add(t));
    return out;
  }

  /**
   * Says that only the first discussions are charted, when there are more than the cap; or null.
   */
  static String discussionChartsNote(List<DiscussionTurn> turns) {
    int count = byDiscussion(turns).size();
    if (count <= MAX_DISCUSSION_CHARTS) {
      return null;
    }
    return "the report charts "
        + MAX_DISCUSSION_CHARTS
        + " of "
        + count
        + " discussions (the first by benchmark, iteration and id); the Discussions table and"
        + " report.json hold every turn of all of them";
  }

  /**
   * discussion_scores pivoted to one value per (score run, discussion, turn): the group's metrics
   * and each agent's accuracy, sorted by benchmark, iteration, discussion, score run and turn.
   */
  static List<DiscussionTurn> discussionTurns(Dataset<Row> table) {
    Map<List<Object>, DiscussionTurn> turns = new LinkedHashMap<>();
    for (Row r : rows(table, Function.identity())) {
      String scoreRun = r.getAs("score_run_id");
      String discussion = r.getAs("discussion_id");
      int turn = (int) whole(r, "turn");
      Long iteration = nullableWhole(r, "iteration");
      DiscussionTurn t =
          turns.computeIfAbsent(
              java.util.Arrays.asList(scoreRun, discussion, turn),
              k ->
                  new DiscussionTurn(
                      scoreRun,
                      discussion,
                      r.getAs("discuss_run_id"),
                      r.getAs("benchmark"),
                      iteration == null ? null : iteration.intValue(),
                      turn,
                      0,
                      new LinkedHashMap<>(),
                      new java.util.TreeMap<>()));
      String agent = r.getAs("agent_id");
      String metric = r.getAs("metric");
      Double value = nullableNumber(r, "value");
      if (ALL.equals(agent)) {
        t.metrics().put(metric, value);
        if ("majority_accuracy".equals(metric)) {
          turns.put(
              java.util.Arrays.asList(scoreRun, discussion, turn),
              new DiscussionTurn(
                  t.scoreRunId(),
                  t.discussionId(),
                  t.discussRunId(),
                  t.benchmark(),
                  t.iteration(),
                  t.turn(),
                  whole(r, "n"),
                  t.metrics(),
                  t.agentAccuracy()));
        }
      } else if ("accuracy".equals(metric) && agent != null) {
        t.agentAccuracy().put(agent, value);
      }
    }
    List<DiscussionTurn> out = new ArrayList<>();
    for (DiscussionTurn t : turns.values()) {
      // The known metrics first, in their order, then any other.
      Map<String, Double> ordered = new LinkedHashMap<>();
      DISCUSSION_METRICS.forEach(
          m -> {
            if (t.metrics().containsKey(m)) {
              ordered.put(m, t.metrics().get(m));
            }
          });
      new TreeSet<>(t.metrics().keySet()).forEach(m -> ordered.putIfAbsent(m, t.metrics().get(m)));
      out.add(
          new DiscussionTurn(
              t.scoreRunId(),
              t.discussionId(),
              t.discussRunId(),
              t.benchmark(),
              t.iteration(),
              t.turn(),
              t.questions(),
              java.util.Collections.unmodifiableMap(ordered),
              java.util.Collections.unmodifiableMap(t.agentAccuracy())));
    }
    Comparator<String> text = Comparator.nullsFirst(Comparator.naturalOrder());
    out.sort(
        Comparator.comparing(DiscussionTurn::benchmark, text)
            .thenComparing(
                DiscussionTurn::iteration, Comparator.nullsFirst(Comparator.naturalOrder()))
            .thenComparing(DiscussionTurn::discussionId, text)
            .thenComparing(DiscussionTurn::scoreRunId, text)
            .thenComparingInt(DiscussionTurn::turn));
    return out;
  }

  /**
   * The score runs to report: those configured, or the latest one (by {@code runs.started_at}, then
   * id) that left rows in any of the score tables; empty for {@code [all]}.
   */
  static List<String> selectScoreRuns(
      List<String> configured, Comparator<String> byStart, List<Dataset<Row>> tables) {
    if (configured.equals(List.of(ALL))) {
      Set<String> all = new TreeSet<>(byStart);
      for (Dataset<Row> table : tables) {
        if (table != null) {
          table
              .select("score_run_id")
              .distinct()
              .collectAsList()
              .forEach(r -> all.add(r.getString(0)));
        }
      }
      all.remove(null);
      return List.copyOf(all);
    }
    if (!configured.isEmpty()) {
      return List.copyOf(configured);
    }
    String latest = null;
    for (Dataset<Row> table : tables) {
      if (table == null) {
        continue;
      }
      for (Row row : table.select("score_run_id").distinct().collectAsList()) {
        String id = row.getString(0);
        if (id != null && (latest == null || byStart.compare(id, latest) > 0)) {
          latest = id;
        }
      }
    }
    return latest == null ? List.of() : List.of(latest);
  }

  private static Dataset<Row> filterScoreRuns(
      Dataset<Row> table, List<String> configured, List<String> selected) {
    if (table == null || configured.equals(List.of(ALL))) {
      return table;
    }
    return table.filter(col("score_run_id").isin(selected.toArray()));
  }

  /**
   * Configured retrieve runs, or {@code [all]}, or the latest run of each (benchmark, retriever).
   */
  static List<Recall> selectRecall(
      List<Recall> rows, List<String> configured, Comparator<String> byStart) {
    if (configured.equals(List.of(ALL))) {
      return rows;
    }
    if (!configured.isEmpty()) {
      return new ArrayList<>(rows.stream().filter(r -> configured.contains(r.runId())).toList());
    }
    Map<String, String> latest = new HashMap<>();
    for (Recall r : rows) {
      latest.merge(
          r.benchmark() + "\u0000" + r.retriever(),
          r.runId(),
          (a, b) -> byStart.compare(a, b) >= 0 ? a : b);
    }
    return new ArrayList<>(
        rows.stream()
            .filter(r -> r.runId().equals(latest.get(r.benchmark() + "\u0000" + r.retriever())))
            .toList());
  }

  /** The table, or null with a note when it is missing or lacks an agreed column. */
  private static Dataset<Row> table(
      Warehouse warehouse, String name, List<String> columns, Map<String, String> notes) {
    if (!warehouse.exists(name)) {
      notes.put(name, "table " + name + " does not exist in the warehouse");
      return null;
    }
    Dataset<Row> table = warehouse.read(name);
    Set<String> have = Set.of(table.columns());
    List<String> missing = columns.stream().filter(c -> !have.contains(c)).toList();
    if (!missing.isEmpty()) {
      notes.put(name, "table " + name + " lacks the columns " + missing + ", so it is left out");
      return null;
    }
    return table;
  }

  /**
   * Says which rag benchmarks have no gold evidence, so no recall@k, in place of a note that the
   * recall table is missing or empty: QuALITY's questions name their article, not the passage that
   * answers them.
   */
  private static void noEvidenceNote(
      Warehouse warehouse, Map<String, String> notes, List<Score> scores, List<Recall> recall) {
    Set<String> ragBenchmarks = new TreeSet<>();
    scores.stream()
        .filter(s -> RagRecipes.bare(s.setting()).endsWith("rag"))
        .forEach(s -> ragBenchmarks.add(s.benchmark()));
    recall.forEach(r -> ragBenchmarks.remove(r.benchmark()));
    if (ragBenchmarks.isEmpty() || !warehouse.exists("questions")) {
      return;
    }
    Set<String> withEvidence = new TreeSet<>();
    warehouse
        .read("questions")
        .filter(
            col("benchmark")
                .isin(ragBenchmarks.toArray())
                .and(col("meta").getItem("evidence_doc_ids").isNotNull()))
        .select("benchmark")
        .distinct()
        .collectAsList()
        .forEach(r -> withEvidence.add(r.getString(0)));
    ragBenchmarks.removeAll(withEvidence);
    if (ragBenchmarks.isEmpty()) {
      return;
    }
    String note =
        "recall@k is not measured for "
            + String.join(", ", ragBenchmarks)
            + ": "
            + (ragBenchmarks.size() == 1 ? "its" : "their")
            + " questions have no gold evidence (they name a document, not the passage that"
            + " answers them), so retrieval is judged by the answers alone";
    if (recall.isEmpty()) {
      notes.put("retrieval_recall", note);
    } else {
      notes.put("retrieval_recall.no_evidence", note);
    }
  }

  private static void emptyNote(
      Map<String, String> notes, String name, List<?> rows, Dataset<Row> table) {
    if (table != null && rows.isEmpty()) {
      notes.put(name, "table " + name + " has no rows for the selected runs");
    }
  }

  private static <T> List<T> rows(Dataset<Row> table, Function<Row, T> map) {
    List<T> out = new ArrayList<>();
    if (table != null) {
      for (Row row : table.collectAsList()) {
        out.add(map.apply(row));
      }
    }
    return out;
  }

  private static Score score(Row r) {
    return new Score(
        r.getAs("run_id"),
        r.getAs("benchmark"),
        r.getAs("subset"),
        r.getAs("setting"),
        r.getAs("model"),
        r.getAs("metric"),
        number(r, "value"),
        whole(r, "n"),
        nullableNumber(r, "ci_low"),
        nullableNumber(r, "ci_high"),
        nullableWhole(r, "synthetic_tokens"),
        r.getAs("config_hash"),
        strings(r, "prompt_versions"),
        r.getAs("git_sha"),
        r.getAs("score_run_id"));
  }

  private static Comparison comparison(Row r) {
    return new Comparison(
        r.getAs("run_id_a"),
        r.getAs("run_id_b"),
        r.getAs("benchmark"),
        r.getAs("subset"),
        r.getAs("setting_a"),
        r.getAs("setting_b"),
        r.getAs("metric"),
        whole(r, "n"),
        number(r, "value_a"),
        number(r, "value_b"),
        number(r, "diff"),
        nullableNumber(r, "ci_low"),
        nullableNumber(r, "ci_high"),
        nullableNumber(r, "p_value"),
        r.getAs("score_run_id"));
  }

  private static ScalingFit fit(Row r) {
    List<Point> points = new ArrayList<>();
    List<Row> raw =
        r.isNullAt(r.fieldIndex("points")) ? List.of() : r.getList(r.fieldIndex("points"));
    for (Row p : raw) {
      points.add(
          new Point(
              p.getAs("run_id"),
              ((Number) p.getAs("tokens")).longValue(),
              ((Number) p.getAs("value")).doubleValue()));
    }
    points.sort(
        Comparator.comparingLong(Point::tokens)
            .thenComparing(Point::runId, Comparator.nullsFirst(Comparator.naturalOrder())));
    return new ScalingFit(
        r.getAs("fit_id"),
        r.getAs("benchmark"),
        r.getAs("setting"),
        r.getAs("metric"),
        (int) whole(r, "n_points"),
        number(r, "intercept"),
        number(r, "slope"),
        nullableNumber(r, "slope_se"),
        nullableNumber(r, "r2"),
        r.getAs("baseline_setting"),
        nullableNumber(r, "baseline_value"),
        nullableNumber(r, "crossover_tokens"),
        points,
        r.getAs("score_run_id"),
        optionalString(r, "generator"),
        optionalString(r, "token_count") == null
            ? FitScalingJob.WRITTEN
            : optionalString(r, "token_count"),
        optionalString(r, "count_tokenizer"),
        optionalString(r, "subset") == null ? "all" : optionalString(r, "subset"),
        optionalString(r, "label"));
  }

  /** A column added to scaling_fits later: null in a table written before it. */
  private static String optionalString(Row r, String column) {
    return java.util.Arrays.asList(r.schema().fieldNames()).contains(column)
        ? r.getAs(column)
        : null;
  }

  private static Recall recall(Row r) {
    return new Recall(
        r.getAs("run_id"),
        r.getAs("benchmark"),
        r.getAs("retriever"),
        (int) whole(r, "k"),
        number(r, "recall"),
        whole(r, "hits"),
        whole(r, "n"));
  }

  private static RunInfo run(Row r) {
    Timestamp started = r.getAs("started_at");
    Timestamp ended = r.getAs("ended_at");
    return new RunInfo(
        r.getAs("run_id"),
        r.getAs("job"),
        r.getAs("status"),
        r.getAs("config_hash"),
        r.getAs("config_json"),
        r.getAs("git_sha"),
        r.getAs("infuse_version"),
        r.getAs("spark_version"),
        started == null ? null : started.toInstant(),
        ended == null ? null : ended.toInstant(),
        counts(r));
  }

  /** runs.counts, or empty where the table lacks it (an older warehouse). */
  private static Map<String, Long> counts(Row r) {
    if (!java.util.Arrays.asList(r.schema().fieldNames()).contains("counts")
        || r.isNullAt(r.fieldIndex("counts"))) {
      return Map.of();
    }
    return Map.copyOf(r.<String, Long>getJavaMap(r.fieldIndex("counts")));
  }

  private static double number(Row r, String column) {
    Double value = nullableNumber(r, column);
    return value == null ? Double.NaN : value;
  }

  private static Double nullableNumber(Row r, String column) {
    Object value = r.getAs(column);
    return value == null ? null : ((Number) value).doubleValue();
  }

  private static long whole(Row r, String column) {
    Long value = nullableWhole(r, column);
    return value == null ? 0 : value;
  }

  private static Long nullableWhole(Row r, String column) {
    Object value = r.getAs(column);
    return value == null ? null : ((Number) value).longValue();
  }

  private static List<String> strings(Row r, String column) {
    int index = r.fieldIndex(column);
    return r.isNullAt(index) ? List.of() : new ArrayList<>(r.<String>getList(index));
  }
}
