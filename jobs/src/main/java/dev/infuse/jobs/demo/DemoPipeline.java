package dev.infuse.jobs.demo;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.sum;

import dev.infuse.jobs.answer.AnswerJob;
import dev.infuse.jobs.behavior.BuildBehaviorTasksJob;
import dev.infuse.jobs.behavior.MineHardJob;
import dev.infuse.jobs.behavior.SftDataJob;
import dev.infuse.jobs.chunk.ChunkJob;
import dev.infuse.jobs.config.ConfigException;
import dev.infuse.jobs.config.ConfigLoader;
import dev.infuse.jobs.config.InfuseConfig;
import dev.infuse.jobs.config.InfuseHome;
import dev.infuse.jobs.embed.EmbedJob;
import dev.infuse.jobs.evaluate.Evaluation;
import dev.infuse.jobs.generate.GenDocsJob;
import dev.infuse.jobs.generate.GenQaJob;
import dev.infuse.jobs.ingest.IngestJob;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.jobs.llm.LlmConfig;
import dev.infuse.jobs.maporl.DiscussConfig;
import dev.infuse.jobs.maporl.DiscussJob;
import dev.infuse.jobs.maporl.RewardJob;
import dev.infuse.jobs.run.RecordedSteps;
import dev.infuse.jobs.score.ScoreJob;
import dev.infuse.jobs.shards.BuildShardsJob;
import dev.infuse.jobs.spark.SparkSessions;
import dev.infuse.jobs.train.TrainConfig;
import dev.infuse.jobs.train.TrainJob;
import dev.infuse.udfs.llm.LlmBackend;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The main pipeline on the embedded defaults, with no model server and nothing to download: ingest
 * the QuALITY sample shipped in {@code samples/}, chunk and embed it, generate synthetic data,
 * build training shards at three token counts, train a tiny model on each and query the largest;
 * run a small MAPoRL discussion on a few GSM8K problems, reward and score it; run the behaviour
 * recipe on shipped clinical samples (tasks, behaviour answers, scores, the Hard subset, SFT data);
 * then evaluate the models against RAG, in a report that shows the discussion too. Each job is a
 * normal recorded run, in one Spark session. Later recipes extend this same pipeline.
 */
public final class DemoPipeline {
  /** Where the demo's full shard build goes, relative to the warehouse. */
  static final String DEMO_SHARDS = "shards/demo";

  /**
   * The scaling sweep: the same mixture cut at three token targets, each model trained for one pass
   * over its shards, so the models differ only in how much synthetic data they saw. The last point
   * is the demo's main model.
   */
  static final List<SweepPoint> SWEEP =
      List.of(
          new SweepPoint(20_000, DEMO_SHARDS + "-20k", "models/tiny-20k"),
          new SweepPoint(40_000, DEMO_SHARDS + "-40k", "models/tiny-40k"),
          new SweepPoint(80_000, DEMO_SHARDS, "models/tiny"));

  /** The RAG recipes the demo evaluates side by side, relative to the Infuse home. */
  static final String DEFAULT_RECIPE = "conf/rag/default.yaml";

  static final String ENTIGRAPH_RECIPE = "conf/rag/entigraph.yaml";

  /** One point of the sweep: the mixture's token target, its shards and its model. */
  record SweepPoint(long totalTokens, String shards, String modelDir) {}

  /** The steps of the MAPoRL discussion: ingest its problems, discuss, reward, score. */
  private static final int DISCUSSION_STEPS = 4;

  /** The clinical sources of the behaviour run, in the order they are ingested. */
  private static final List<String> BEHAVIOR_SOURCES =
      List.of("medec", "agentclinic", "aci-bench", "medqa");

  /** The steps of the behaviour run: one ingest per source, build, answer, score, mine, SFT. */
  private static final int BEHAVIOR_STEPS = BEHAVIOR_SOURCES.size() + 5;

  private final Supplier<ConfigLoader> userConfig;
  private final List<String> settings;
  private final InfuseConfig config;
  private final Path discussionInput;
  private final Map<String, Path> behaviorInputs = new LinkedHashMap<>();

  /**
   * Plans the demo over the user's config (the warehouse, the master and any key they set); fails
   * before any job when the sample is missing.
   *
   * @throws ConfigException when the config cannot be used
   */
  public DemoPipeline(Supplier<ConfigLoader> userConfig) {
    this.userConfig = userConfig;
    InfuseConfig base = userConfig.get().load();
    DemoConfig demo = base.section(DemoConfig.class);
    Path input = sample("demo.input", demo.input(), "the QuALITY sample file");
    this.discussionInput =
        sample("demo.discussion_input", demo.discussionInput(), "the GSM8K sample file");
    for (String source : BEHAVIOR_SOURCES) {
      String relative = demo.behaviorInputs().get(source);
      if (relative == null) {
        throw new ConfigException(
            List.of(
                "demo.behavior_inputs."
                    + source
                    + ": got nothing, expected the "
                    + source
                    + " sample file"));
      }
      behaviorInputs.put(
          source,
          sample("demo.behavior_inputs." + source, relative, "the " + source + " sample file"));
    }
    this.settings =
        new ArrayList<>(
            List.of(
                "ingest.format=quality",
                "ingest.input=" + input,
                // The SMT steps work on the QuALITY corpus alone: the warehouse also holds the
                // discussion's and the behaviour run's data, which must not leak into chunks,
                // synthetic data or training shards (and rerunning a step must see the same
                // inputs).
                "chunk.corpus=quality",
                "gen_qa.corpus=quality",
                "gen_docs.corpus=quality",
                "shards.corpus=quality",
                "shards.decontamination.benchmarks=[quality]",
                // The demo trains on the shards it builds, cut to the model's sequence length.
                "shards.sequence_length=" + base.section(TrainConfig.class).sequenceLength(),
                // The default recipe: every QuALITY question retrieves from its own article (the
                // oracle-document scope the report labels); the answers read the top 4 chunks.
                "retrieve.k=4",
                "answer.k=4",
                // The evaluation: the model-free reader with RAG, and every model of the sweep
                // closed-book and with RAG.
                "evaluate.benchmarks=[quality]",
                "evaluate.settings=[rag, trained, trained_rag]",
                "evaluate.compare=[[rag, trained_rag], [rag, trained]]",
                // Both RAG recipes side by side with the model-free reader: Infuse's default, and
                // EntiGraph's baseline for rag alone (its trained_rag would add four runs and show
                // nothing the default's does not).
                "evaluate.rag_recipes=[" + DEFAULT_RECIPE + ", " + ENTIGRAPH_RECIPE + "]",
                "evaluate.rag_recipe_settings=[rag]",
                "evaluate.models=["
                    + String.join(", ", SWEEP.stream().map(SweepPoint::modelDir).toList())
                    + "]"));
    // The demo's tables are tiny. Only the session the demo starts reads these; a session that
    // already exists keeps its own.
    SparkSessions.SMALL_JOBS_CONF.forEach(
        (key, value) -> this.settings.add("spark.conf." + key + "='" + value + "'"));
    this.config = config().load();
  }

  private static Path sample(String key, String relative, String expected) {
    Path path = InfuseHome.resolve(relative);
    if (!Files.isRegularFile(path)) {
      throw new ConfigException(
          List.of(
              key
                  + ": got "
                  + path
                  + ", expected "
                  + expected
                  + " (run from the repository root, or set INFUSE_HOME)"));
    }
    return path;
  }

  /** A fresh loader of the user's config with the demo's keys on top. */
  public ConfigLoader config() {
    ConfigLoader loader = userConfig.get();
    for (String setting : settings) {
      int eq = setting.indexOf('=');
      String key = setting.substring(0, eq);
      // Paths are strings as given; only the demo's numbers and lists go through YAML.
      if (key.endsWith("input")) {
        loader.setString(key, setting.substring(eq + 1));
      } else {
        loader.set(setting);
      }
    }
    return loader;
  }

  /** How many numbered steps the demo runs. */
  public int steps() {
    // The evaluation is planned once its models exist, but its step count follows from the
    // config alone.
    return 5
        + 2 * SWEEP.size()
        + 1
        + DISCUSSION_STEPS
        + BEHAVIOR_STEPS
        + Evaluation.steps(config, SWEEP.size(), true, false);
  }

  /**
   * Runs every step in {@code spark}, then prints the evaluation's numbers, where to look, and the
   * time since {@code startedNanos} ({@link System#nanoTime}).
   *
   * @throws dev.infuse.jobs.run.StepFailedException when a step fails
   */
  public void run(SparkSession spark, PrintWriter out, PrintWriter err, long startedNanos) {
    run(spark, out, err, startedNanos, steps());
  }

  /**
   * Runs the first {@code lastStep} steps in {@code spark}, e.g. the SMT data and shards without
   * training; with every step, as {@link #run(SparkSession, PrintWriter, PrintWriter, long)}.
   *
   * @throws IllegalArgumentException when {@code lastStep} is not a step of the demo
   * @throws dev.infuse.jobs.run.StepFailedException when a step fails
   */
  public void run(
      SparkSession spark, PrintWriter out, PrintWriter err, long startedNanos, int lastStep) {
    if (lastStep < 1 || lastStep > steps()) {
      throw new IllegalArgumentException(
          "--stop-after: got " + lastStep + ", expected a step from 1 to " + steps());
    }
    RecordedSteps steps =
        new RecordedSteps(spark, this::config, steps(), out, err).stopAfter(lastStep);
    try {
      runSteps(spark, steps, out, startedNanos);
    } catch (RecordedSteps.Stopped stopped) {
      out.printf(
          Locale.ROOT,
          "%nDemo stopped after step %d of %d (--stop-after) in %.1f s. Warehouse: %s%n",
          stopped.step(),
          steps(),
          (System.nanoTime() - startedNanos) / 1e9,
          config.warehouse());
      out.flush();
    }
  }

  private void runSteps(
      SparkSession spark, RecordedSteps steps, PrintWriter out, long startedNanos) {
    steps.run(
        "ingest: QuALITY sample -> documents, questions",
        IngestJob.NAME,
        run -> new IngestJob(run).run());
    ingestOtherSamples(steps);
    steps.run(
        "chunk: documents -> chunks (the QuALITY corpus)",
        ChunkJob.NAME,
        run -> new ChunkJob(run).run());
    steps.run(
        "embed: chunks -> chunk_embeddings (all-MiniLM-L6-v2, ONNX Runtime through DJL)",
        EmbedJob.NAME,
        run -> new EmbedJob(run).run());
    steps.run(
        "gen-qa: chunks -> synthetic_qa (llm.backend "
            + config.section(LlmConfig.class).client().backend()
            + ")",
        GenQaJob.NAME,
        run -> new GenQaJob(run).run());
    steps.run(
        "gen-docs: documents -> synthetic_docs (rephrase, entity, focal)",
        GenDocsJob.NAME,
        run -> new GenDocsJob(run).run());
    for (SweepPoint point : SWEEP) {
      steps.run(
          String.format(
              Locale.ROOT,
              "build-shards: dedup, decontaminate, mix %,d tokens, pack -> Parquet, JSONL"
                  + " and Megatron shards in %s",
              point.totalTokens(),
              point.shards()),
          BuildShardsJob.NAME,
          run -> new BuildShardsJob(run).run(),
          loader ->
              loader
                  .setString("shards.output", point.shards())
                  .set("shards.total_tokens=" + point.totalTokens()));
    }
    Warehouse warehouse = Warehouse.of(spark, config);
    for (SweepPoint point : SWEEP) {
      String shards = localPath(config.warehouse(), point.shards());
      int trainSteps =
          onePass(warehouse, shards, config.section(TrainConfig.class).training().batchSize());
      steps.run(
          String.format(
              Locale.ROOT,
              "train: %s -> a tiny causal LM in %s, %d steps: one pass (DJL, PyTorch" + " engine)",
              point.shards(),
              point.modelDir(),
              trainSteps),
          TrainJob.NAME,
          run -> new TrainJob(run).run(),
          loader ->
              loader
                  .setString("train.shards", shards)
                  .setString("train.model_dir", point.modelDir())
                  .set("train.steps=" + trainSteps));
    }
    Path modelDir = TrainJob.modelDir(config.warehouse(), SWEEP.get(SWEEP.size() - 1).modelDir());
    steps.heading(
        "ask the largest model through the djl backend (tiny and briefly trained: this proves the"
            + " path, not the quality)");
    TrainedModelProbe.run(warehouse, config, modelDir, out);

    String discussionScores = discuss(steps);
    behave(steps);

    // The chunks are fresh: the evaluation starts at index. Its report shows the discussion too.
    ConfigLoader evaluation = config();
    evaluation.setStrings("report.score_runs", List.of(discussionScores));
    Evaluation.Result result = new Evaluation(evaluation.load(), false).run(steps);
    Evaluation.printSummary(warehouse, result, out);
    printWhereToLook(warehouse, config, startedNanos, out);
  }

  /**
   * Every input the later recipes read, ingested up front: a step rerun later then sees the same
   * tables it saw the first time (a shard build decontaminates against all questions, so questions
   * ingested after it would make its rerun a different build).
   */
  private void ingestOtherSamples(RecordedSteps steps) {
    steps.run(
        "ingest: GSM8K sample -> questions (the discussion's problems)",
        IngestJob.NAME,
        run -> new IngestJob(run).run(),
        loader ->
            loader
                .set("ingest.format=gsm8k")
                .setString("ingest.input", discussionInput.toString()));
    for (String source : BEHAVIOR_SOURCES) {
      Path input = behaviorInputs.get(source);
      steps.run(
          "ingest: "
              + source
              + " sample -> "
              + (source.equals("medqa") ? "questions" : "documents")
              + " (the behaviour tasks' cases)",
          IngestJob.NAME,
          run -> new IngestJob(run).run(),
          loader ->
              loader.set("ingest.format=" + source).setString("ingest.input", input.toString()));
    }
  }

  /**
   * MAPoRL's discussion on the GSM8K sample (ingested up front): its agents (the model-free default
   * unless the user's config names endpoints) answer alone, then see each other's answers for two
   * more turns; the rollouts are rewarded and scored per turn. Returns the score run.
   */
  private String discuss(RecordedSteps steps) {
    DiscussConfig discuss = config.section(DiscussConfig.class);
    LlmBackend backend = config.section(LlmConfig.class).client().backend();
    steps.run(
        String.format(
            Locale.ROOT,
            "discuss: gsm8k questions -> rollouts, %d agents x %d turns (llm.backend %s, verifier"
                + " %s)%s",
            discuss.agents().size(),
            discuss.turns(),
            backend,
            discuss.verifier(),
            // The model-free discussant cannot do arithmetic; say so before its zeros appear.
            backend == LlmBackend.EXTRACTIVE
                ? "; the model-free discussant picks a number from the problem: this proves the"
                    + " path, not the quality"
                : ""),
        DiscussJob.NAME,
        run -> new DiscussJob(run).run(),
        loader -> loader.set("discuss.benchmark=gsm8k"));
    steps.run(
        "reward: rollouts -> rewards (MAPoRL's discounted base reward, group advantages)",
        RewardJob.NAME,
        run -> new RewardJob(run).run());
    return steps.run(
        "score: the discussion's per-turn metrics -> discussion_scores",
        ScoreJob.NAME,
        run -> new ScoreJob(run).run(),
        loader ->
            loader
                .setStrings("score.discussions", List.of("latest"))
                .setStrings("score.runs", List.of()));
  }

  /**
   * The behaviour recipe on the clinical samples (ingested up front): build the behaviour tasks,
   * answer them as a clinical assistant (the model-free checker unless the user's config names a
   * model), score macro-F1 and MEDEC's metrics, mine the Hard subset (a panel of this one run, so
   * any failed task is Hard) and write BehaviorSFT data.
   */
  private void behave(RecordedSteps steps) {
    steps.run(
        "build-behavior-tasks: clinical cases -> behavior_tasks (reactive, proactive, restraint;"
            + " conf/behavior/taxonomy.yaml)",
        BuildBehaviorTasksJob.NAME,
        run -> new BuildBehaviorTasksJob(run).run());
    LlmBackend backend = config.section(LlmConfig.class).client().backend();
    String behaviorRun =
        steps.run(
            "answer --mode behavior: behavior_tasks -> behavior_predictions (llm.backend "
                + backend
                + ")"
                + (backend == LlmBackend.EXTRACTIVE
                    ? "; the model-free checker flags out-of-range values and conflicting ones,"
                        + " never a medical error: a floor, not a model"
                    : ""),
            AnswerJob.NAME,
            run -> new AnswerJob(run).run(),
            loader -> loader.set("answer.mode=behavior"));
    steps.run(
        "score: behaviour macro-F1, over/under-proactivity, MEDEC's metrics -> behavior_scores",
        ScoreJob.NAME,
        run -> new ScoreJob(run).run(),
        loader ->
            loader
                .setStrings("score.behavior_runs", List.of(behaviorRun))
                .setStrings("score.runs", List.of()));
    steps.run(
        "mine-hard: the tasks the panel fails -> behavior_tasks_hard (panel: this run, m = 1)",
        MineHardJob.NAME,
        run -> new MineHardJob(run).run(),
        loader ->
            loader
                .setStrings("behavior.hard.runs", List.of(behaviorRun))
                .set("behavior.hard.min_failures=1"));
    steps.run(
        "sft-data: behavior_tasks -> BehaviorSFT chat JSONL with behavioural tokens",
        SftDataJob.NAME,
        run -> new SftDataJob(run).run());
  }

  /** Steps for one pass over a build's Parquet sequences, as its shard_manifest rows count them. */
  private static int onePass(Warehouse warehouse, String shards, int batchSize) {
    Row sequences =
        warehouse
            .read("shard_manifest")
            .filter(col("format").equalTo("parquet").and(col("output").equalTo("file:" + shards)))
            .agg(sum("sequences"))
            .head();
    if (sequences.isNullAt(0)) {
      throw new IllegalStateException("shard_manifest has no parquet rows for file:" + shards);
    }
    return (int) Math.max(1, (sequences.getLong(0) + batchSize - 1) / batchSize);
  }

  /** A shard output as train.shards reads it: an absolute path under a local warehouse. */
  private static String localPath(String warehouse, String relative) {
    return TrainJob.modelDir(warehouse, relative).toString();
  }

  private static void printWhereToLook(
      Warehouse warehouse, InfuseConfig config, long started, PrintWriter out) {
    out.printf(
        Locale.ROOT,
        "%nDemo finished in %.1f s. Warehouse: %s%n",
        (System.nanoTime() - started) / 1e9,
        warehouse.root());
    for (String table : warehouse.tables()) {
      out.printf(
          Locale.ROOT,
          "  %-22s %6d rows  %s%n",
          table,
          warehouse.read(table).count(),
          warehouse.path(table));
    }
    String w = config.warehouse();
    out.println();
    out.println("Look at it:");
    out.println(
        "  bin/infuse sql --warehouse "
            + w
            + " \"SELECT doc_id, title, length(text) AS chars FROM documents\"");
    out.println(
        "  bin/infuse sql --warehouse "
            + w
            + " \"SELECT doc_id, count(*) AS chunks, max(n_tokens) AS max_tokens FROM chunks GROUP BY doc_id\"");
    out.println(
        "  bin/infuse sql --warehouse "
            + w
            + " --json \"SELECT question_id, question, options, gold FROM questions LIMIT 3\"");
    out.println(
        "  bin/infuse sql --warehouse "
            + w
            + " \"SELECT question, answer FROM synthetic_qa LIMIT 5\"");
    out.println(
        "  bin/infuse sql --warehouse "
            + w
            + " \"SELECT kind, variant, count(*) AS docs, sum(n_tokens) AS tokens FROM synthetic_docs GROUP BY kind, variant\"");
    out.println(
        "  bin/infuse sql --warehouse "
            + w
            + " \"SELECT run_id, job, status, input_count, output_count, quarantined_count FROM runs ORDER BY started_at\"");
    out.println(
        "  bin/infuse sql --warehouse "
            + w
            + " \"SELECT format, shard, sequences, documents, tokens, composition FROM shard_manifest ORDER BY format, shard\"");
    out.println(
        "  bin/infuse sql --warehouse "
            + w
            + " \"SELECT reason, count(*) AS dropped FROM shard_dedup_drops GROUP BY reason\"");
    out.println("  cat " + localPath(w, DEMO_SHARDS) + "/stats.json");
    out.println(
        "  bin/infuse sql --warehouse "
            + w
            + " \"SELECT step, loss, lr, tokens_per_second FROM train_metrics ORDER BY step\"");
    out.println(
        "  bin/infuse sql --warehouse "
            + w
            + " \"SELECT setting, answer_mode, count(*) AS n, avg(CAST(correct AS INT))"
            + " AS accuracy FROM predictions GROUP BY setting, answer_mode\"");
    out.println(
        "  bin/infuse sql --warehouse "
            + w
            + " \"SELECT setting, subset, metric, round(value, 3) AS value, n,"
            + " round(ci_low, 3) AS ci_low, round(ci_high, 3) AS ci_high FROM scores ORDER BY setting, subset, metric\"");
    out.println(
        "  bin/infuse sql --warehouse "
            + w
            + " \"SELECT agent_id, turn, parsed_answer, correct, left(response, 60) AS response FROM rollouts ORDER BY question_id, turn, agent_id LIMIT 12\"");
    out.println(
        "  bin/infuse sql --warehouse "
            + w
            + " \"SELECT turn, metric, round(value, 3) AS value, n FROM discussion_scores WHERE agent_id = 'all' ORDER BY turn, metric\"");
    out.flush();
  }
}
