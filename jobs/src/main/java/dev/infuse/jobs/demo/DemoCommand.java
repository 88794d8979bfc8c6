package dev.infuse.jobs.demo;

import dev.infuse.jobs.InfuseHome;
import dev.infuse.jobs.JobRun;
import dev.infuse.jobs.RunCounts;
import dev.infuse.jobs.chunk.ChunkJob;
import dev.infuse.jobs.cli.CommonOptions;
import dev.infuse.jobs.cli.IngestCommand;
import dev.infuse.jobs.cli.JobCommand;
import dev.infuse.jobs.config.ConfigException;
import dev.infuse.jobs.config.ConfigLoader;
import dev.infuse.jobs.config.InfuseConfig;
import dev.infuse.jobs.embed.EmbedJob;
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
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code demo}: the main pipeline on the embedded defaults, with no model server and nothing to
 * download: ingest the QuALITY sample shipped in {@code samples/}, chunk it, generate synthetic data,
 * build training shards from it, train a tiny model on the shards and query that model. Each job is a normal recorded run, in one Spark
 * session. Later recipes extend this same command.
 */
@Command(name = "demo", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Run the main pipeline on the embedded defaults: ingest the QuALITY sample, chunk it, generate",
        "synthetic QA and documents (rephrase, entity, focal) with the model-free extractive backend, build",
        "deduplicated, decontaminated training shards (Parquet, JSONL, Megatron), train a tiny causal LM on them,",
        "and ask that model questions through the djl backend.",
        "Writes to ./warehouse unless --warehouse is given, and prints how to look at the result."})
public final class DemoCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Mixin
  CommonOptions common;

  /** Where the demo's shards go, relative to the warehouse. */
  static final String DEMO_SHARDS = "shards/demo";

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    long started = System.nanoTime();
    InfuseConfig config;
    try {
      ConfigLoader loader = common.loader();
      InfuseConfig base = loader.load();
      Path input = InfuseHome.resolve(base.demo().input());
      if (!Files.isRegularFile(input)) {
        throw new ConfigException(java.util.List.of("demo.input: got " + input
            + ", expected the QuALITY sample file (run from the repository root, or set INFUSE_HOME)"));
      }
      loader.setString("ingest.format", "quality");
      loader.setString("ingest.input", input.toString());
      // The demo trains on the shards it builds, cut to the model's sequence length.
      loader.setString("shards.output", DEMO_SHARDS);
      loader.set("shards.sequence_length=" + base.train().sequenceLength());
      loader.setString("train.shards", demoShards(base.warehouse()));
      config = loader.load();
    } catch (ConfigException e) {
      err.println("error: " + e.getMessage());
      err.flush();
      return 2;
    }
    SparkSessions.Session session = SparkSessions.getOrCreate("infuse demo", config.spark().master(), config.spark().conf());
    try {
      var spark = session.spark();
      InfuseConfig c = config;
      List<Step> steps = List.of(
          new Step("ingest: QuALITY sample -> documents, questions", "ingest", IngestCommand::ingest),
          new Step("chunk: documents -> chunks", "chunk", run -> new ChunkJob(run).run()),
          new Step("embed: chunks -> chunk_embeddings (all-MiniLM-L6-v2, ONNX Runtime through DJL)", EmbedJob.NAME,
              run -> new EmbedJob(run).run()),
          new Step("gen-qa: chunks -> synthetic_qa (llm.backend " + c.llm().backend() + ")", GenQaJob.NAME,
              run -> new GenQaJob(run).run()),
          new Step("gen-docs: documents -> synthetic_docs (rephrase, entity, focal)", GenDocsJob.NAME,
              run -> new GenDocsJob(run).run()),
          new Step("build-shards: dedup, decontaminate, mix, pack -> Parquet, JSONL and Megatron shards",
              BuildShardsJob.NAME, run -> new BuildShardsJob(run).run()),
          new Step("train: the Parquet shards -> a tiny causal LM (DJL, PyTorch engine)", TrainJob.NAME,
              run -> new TrainJob(run).run()));
      int total = steps.size() + 1;
      for (int i = 0; i < steps.size(); i++) {
        Step step = steps.get(i);
        out.printf(Locale.ROOT, "== %d/%d %s%n", i + 1, total, step.title());
        int code = step(step.job(), new JobRun(step.name(), spark, config, out, err));
        if (code != 0) {
          return code;
        }
      }
      Path modelDir = TrainJob.modelDir(config.warehouse(), config.train().modelDir());
      out.printf(Locale.ROOT, "== %d/%d ask the trained model through the djl backend (tiny and briefly trained: this"
          + " proves the path, not the quality)%n", total, total);
      TrainedModelProbe.run(new Warehouse(spark, config.warehouse()), config, modelDir, out);
      printWhereToLook(new Warehouse(spark, config.warehouse()), config, started, out);
      return 0;
    } finally {
      if (session.created()) {
        session.spark().stop();
      }
    }
  }

  /** One job of the demo: what it does, its name in runs, and the job itself. */
  private record Step(String title, String name, Function<JobRun, RunCounts> job) {}

  private static int step(Function<JobRun, RunCounts> job, JobRun run) {
    return new JobCommand() {
      @Override
      protected String jobName() {
        return run.job();
      }

      @Override
      protected RunCounts execute(JobRun r) {
        return job.apply(r);
      }
    }.runRecorded(run);
  }

  /** The demo's shard output as train.shards reads it: an absolute path under a local warehouse. */
  private static String demoShards(String warehouse) {
    return TrainJob.modelDir(warehouse, DEMO_SHARDS).toString();
  }

  private static void printWhereToLook(Warehouse warehouse, InfuseConfig config, long started, PrintWriter out) {
    out.printf(Locale.ROOT, "%nDemo finished in %.1f s. Warehouse: %s%n", (System.nanoTime() - started) / 1e9,
        warehouse.root());
    for (String table : warehouse.tables()) {
      out.printf(Locale.ROOT, "  %-22s %6d rows  %s%n", table, warehouse.read(table).count(), warehouse.path(table));
    }
    String w = config.warehouse();
    out.println();
    out.println("Look at it:");
    out.println("  bin/infuse sql --warehouse " + w + " \"SELECT doc_id, title, length(text) AS chars FROM documents\"");
    out.println("  bin/infuse sql --warehouse " + w
        + " \"SELECT doc_id, count(*) AS chunks, max(n_tokens) AS max_tokens FROM chunks GROUP BY doc_id\"");
    out.println("  bin/infuse sql --warehouse " + w + " --json \"SELECT question_id, question, options, gold FROM questions LIMIT 3\"");
    out.println("  bin/infuse sql --warehouse " + w + " \"SELECT question, answer FROM synthetic_qa LIMIT 5\"");
    out.println("  bin/infuse sql --warehouse " + w
        + " \"SELECT kind, variant, count(*) AS docs, sum(n_tokens) AS tokens FROM synthetic_docs GROUP BY kind, variant\"");
    out.println("  bin/infuse sql --warehouse " + w
        + " \"SELECT run_id, job, status, input_count, output_count, quarantined_count FROM runs ORDER BY started_at\"");
    out.println("  bin/infuse sql --warehouse " + w
        + " \"SELECT format, shard, sequences, documents, tokens, composition FROM shard_manifest ORDER BY format, shard\"");
    out.println("  bin/infuse sql --warehouse " + w + " \"SELECT reason, count(*) AS dropped FROM shard_dedup_drops GROUP BY reason\"");
    out.println("  cat " + demoShards(w) + "/stats.json");
    out.println("  bin/infuse sql --warehouse " + w + " \"SELECT step, loss, lr, tokens_per_second FROM train_metrics ORDER BY step\"");
    out.flush();
  }
}
