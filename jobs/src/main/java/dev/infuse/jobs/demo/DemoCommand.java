package dev.infuse.jobs.demo;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.sum;

import dev.infuse.jobs.InfuseHome;
import dev.infuse.jobs.chunk.ChunkJob;
import dev.infuse.jobs.cli.CommonOptions;
import dev.infuse.jobs.cli.IngestCommand;
import dev.infuse.jobs.cli.RecordedSteps;
import dev.infuse.jobs.config.ConfigException;
import dev.infuse.jobs.config.ConfigLoader;
import dev.infuse.jobs.config.InfuseConfig;
import dev.infuse.jobs.embed.EmbedJob;
import dev.infuse.jobs.evaluate.Evaluation;
import dev.infuse.jobs.generate.GenDocsJob;
import dev.infuse.jobs.generate.GenQaJob;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.jobs.shards.BuildShardsJob;
import dev.infuse.jobs.spark.SparkSessions;
import dev.infuse.jobs.train.TrainJob;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.apache.spark.sql.Row;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code demo}: the main pipeline on the embedded defaults, with no model server and nothing to
 * download: ingest the QuALITY sample shipped in {@code samples/}, chunk it, generate synthetic
 * data, build training shards from it, train a tiny model on the shards and query that model. Each
 * job is a normal recorded run, in one Spark session. Later recipes extend this same command.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Run the main pipeline on the embedded defaults: ingest the QuALITY sample, chunk it, generate",
      "synthetic QA and documents (rephrase, entity, focal) with the model-free extractive backend, build",
      "deduplicated, decontaminated training shards (Parquet, JSONL, Megatron) at three token counts, train a tiny",
      "causal LM on each, ask the largest questions through the djl backend, then evaluate: RAG with the",
      "model-free reader, each model closed-book and with RAG, scored with CIs and paired comparisons, the scaling",
      "fit over the three models, and the HTML report.",
      "Writes to ./warehouse unless --warehouse is given, and prints how to look at the result."
    })
public final class DemoCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin CommonOptions common;

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

  /** One point of the sweep: the mixture's token target, its shards and its model. */
  record SweepPoint(long totalTokens, String shards, String modelDir) {}

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    long started = System.nanoTime();
    InfuseConfig config;
    List<String> demoSettings;
    try {
      InfuseConfig base = common.loader().load();
      Path input = InfuseHome.resolve(base.demo().input());
      if (!Files.isRegularFile(input)) {
        throw new ConfigException(
            java.util.List.of(
                "demo.input: got "
                    + input
                    + ", expected the QuALITY sample file (run from the repository root, or set INFUSE_HOME)"));
      }
      demoSettings =
          List.of(
              "ingest.format=quality",
              "ingest.input=" + input,
              // The demo trains on the shards it builds, cut to the model's sequence length.
              "shards.sequence_length=" + base.train().sequenceLength(),
              // Every QuALITY question retrieves from its own article; the answers read the top 4
              // chunks.
              "retrieve.k=4",
              "answer.k=4",
              // The evaluation: the model-free reader with RAG, and every model of the sweep
              // closed-book and with RAG.
              "evaluate.benchmarks=[quality]",
              "evaluate.settings=[rag, trained, trained_rag]",
              "evaluate.compare=[[rag, trained_rag], [rag, trained]]",
              "evaluate.models=["
                  + String.join(", ", SWEEP.stream().map(SweepPoint::modelDir).toList())
                  + "]");
      config = configWith(demoSettings).load();
    } catch (ConfigException e) {
      err.println("error: " + e.getMessage());
      err.flush();
      return 2;
    }
    SparkSessions.Session session =
        SparkSessions.getOrCreate("infuse demo", config.spark().master(), config.spark().conf());
    try {
      List<String> settings = demoSettings;
      // The evaluation is planned once its models exist, but its step count follows from the config
      // alone.
      int total =
          5 + 2 * SWEEP.size() + 1 + Evaluation.steps(config.evaluate(), SWEEP.size(), true, false);
      RecordedSteps steps =
          new RecordedSteps(session.spark(), () -> configWith(settings), total, out, err);
      steps.run("ingest: QuALITY sample -> documents, questions", "ingest", IngestCommand::ingest);
      steps.run("chunk: documents -> chunks", ChunkJob.NAME, run -> new ChunkJob(run).run());
      steps.run(
          "embed: chunks -> chunk_embeddings (all-MiniLM-L6-v2, ONNX Runtime through DJL)",
          EmbedJob.NAME,
          run -> new EmbedJob(run).run());
      steps.run(
          "gen-qa: chunks -> synthetic_qa (llm.backend " + config.llm().backend() + ")",
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
      Warehouse warehouse = new Warehouse(session.spark(), config.warehouse());
      for (SweepPoint point : SWEEP) {
        String shards = localPath(config.warehouse(), point.shards());
        int trainSteps = onePass(warehouse, shards, config.train().batchSize());
        steps.run(
            String.format(
                Locale.ROOT,
                "train: %s -> a tiny causal LM in %s, %d steps: one pass (DJL, PyTorch"
                    + " engine)",
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
          "ask the largest model through the djl backend (tiny and briefly trained: this proves the path,"
              + " not the quality)");
      TrainedModelProbe.run(warehouse, config, modelDir, out);

      // The chunks are fresh: the evaluation starts at index.
      Evaluation.Result result = new Evaluation(configWith(settings).load(), false).run(steps);
      Evaluation.printSummary(warehouse, result, out);
      printWhereToLook(warehouse, config, started, out);
      return 0;
    } catch (RecordedSteps.StepFailedException e) {
      err.println("error: demo stopped: " + e.getMessage());
      err.flush();
      return e.code();
    } catch (ConfigException e) {
      err.println("error: " + e.getMessage());
      err.flush();
      return 2;
    } finally {
      if (session.created()) {
        session.spark().stop();
      }
    }
  }

  /** The user's config with the demo's settings on top. */
  private ConfigLoader configWith(List<String> demoSettings) {
    ConfigLoader loader = common.loader();
    for (String setting : demoSettings) {
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
    out.flush();
  }
}
