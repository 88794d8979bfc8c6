package dev.infuse.jobs.demo;

import dev.infuse.jobs.InfuseHome;
import dev.infuse.jobs.JobRun;
import dev.infuse.jobs.RunCounts;
import dev.infuse.jobs.answer.AnswerJob;
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
import dev.infuse.jobs.report.ReportJob;
import dev.infuse.jobs.retrieve.IndexJob;
import dev.infuse.jobs.retrieve.RetrieveJob;
import dev.infuse.jobs.score.ScoreJob;
import dev.infuse.jobs.shards.BuildShardsJob;
import dev.infuse.jobs.spark.SparkSessions;
import dev.infuse.jobs.train.TrainJob;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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
    List<String> demoSettings;
    try {
      InfuseConfig base = common.loader().load();
      Path input = InfuseHome.resolve(base.demo().input());
      if (!Files.isRegularFile(input)) {
        throw new ConfigException(java.util.List.of("demo.input: got " + input
            + ", expected the QuALITY sample file (run from the repository root, or set INFUSE_HOME)"));
      }
      demoSettings = List.of("ingest.format=quality", "ingest.input=" + input,
          // The demo trains on the shards it builds, cut to the model's sequence length.
          "shards.output=" + DEMO_SHARDS, "shards.sequence_length=" + base.train().sequenceLength(),
          "train.shards=" + demoShards(base.warehouse()),
          // Every QuALITY question retrieves from its own article; the answers read the top 4 chunks.
          "retrieve.benchmark=quality", "retrieve.k=4", "answer.benchmark=quality", "answer.k=4",
          "answer.model_dir=" + TrainJob.modelDir(base.warehouse(), base.train().modelDir()));
      config = configWith(demoSettings);
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
              run -> new TrainJob(run).run()),
          new Step("index: chunks -> Lucene BM25 shards + dense vectors", IndexJob.NAME, run -> new IndexJob(run).run()),
          new Step("retrieve: QuALITY questions -> top-4 chunks of their article (hybrid BM25 + dense, RRF)",
              RetrieveJob.NAME, run -> new RetrieveJob(run).run()));
      int total = steps.size() + EVALUATION_STEPS;
      int number = 0;
      for (Step step : steps) {
        out.printf(Locale.ROOT, "== %d/%d %s%n", ++number, total, step.title());
        int code = step(step.job(), new JobRun(step.name(), spark, config, out, err));
        if (code != 0) {
          return code;
        }
      }
      Path modelDir = TrainJob.modelDir(config.warehouse(), config.train().modelDir());
      out.printf(Locale.ROOT, "== %d/%d ask the trained model through the djl backend (tiny and briefly trained: this"
          + " proves the path, not the quality)%n", ++number, total);
      TrainedModelProbe.run(new Warehouse(spark, config.warehouse()), config, modelDir, out);

      // The evaluation: three settings on the same questions, scored with CIs and compared, then reported.
      Map<String, String> answerRuns = new LinkedHashMap<>();
      for (String[] setting : new String[][] {
          {"rag", "RAG with the model-free default reader (the option closest to the retrieved chunks)"},
          {"trained", "closed book with the trained model (log-likelihood of each option)"},
          {"trained_rag", "the trained model with the retrieved chunks in context"}}) {
        out.printf(Locale.ROOT, "== %d/%d answer: %s%n", ++number, total, setting[1]);
        JobRun run = new JobRun(AnswerJob.NAME, spark, configWith(demoSettings, "answer.setting=" + setting[0]), out, err);
        int code = step(r -> new AnswerJob(r).run(), run);
        if (code != 0) {
          return code;
        }
        answerRuns.put(setting[0], run.runId());
      }
      out.printf(Locale.ROOT, "== %d/%d score: accuracy with bootstrap CIs; trained+RAG against RAG, paired%n", ++number,
          total);
      JobRun score = new JobRun(ScoreJob.NAME, spark, configWith(demoSettings,
          "score.runs=[" + String.join(",", answerRuns.values()) + "]",
          "score.compare=[" + answerRuns.get("rag") + "," + answerRuns.get("trained_rag") + "]"), out, err);
      int code = step(r -> new ScoreJob(r).run(), score);
      if (code != 0) {
        return code;
      }
      out.printf(Locale.ROOT, "== %d/%d report: HTML and JSON%n", ++number, total);
      code = step(r -> new ReportJob(r).run(), new JobRun(ReportJob.NAME, spark, configWith(demoSettings), out, err));
      if (code != 0) {
        return code;
      }
      printWhereToLook(new Warehouse(spark, config.warehouse()), config, started, out);
      return 0;
    } finally {
      if (session.created()) {
        session.spark().stop();
      }
    }
  }

  /** Answer (three settings), score and report, after the probe. */
  private static final int EVALUATION_STEPS = 1 + 3 + 1 + 1;

  /** The user's config with the demo's settings, then {@code more}, on top. */
  private InfuseConfig configWith(List<String> demoSettings, String... more) {
    ConfigLoader loader = common.loader();
    for (String setting : demoSettings) {
      int eq = setting.indexOf('=');
      String key = setting.substring(0, eq);
      String value = setting.substring(eq + 1);
      // Paths and ids are strings as given; only the demo's numbers and lists go through YAML.
      if (key.endsWith("input") || key.endsWith("output") || key.endsWith("shards") || key.endsWith("model_dir")) {
        loader.setString(key, value);
      } else {
        loader.set(setting);
      }
    }
    for (String setting : more) {
      loader.set(setting);
    }
    return loader.load();
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
    out.println("  bin/infuse sql --warehouse " + w + " \"SELECT setting, answer_mode, count(*) AS n, avg(CAST(correct AS INT))"
        + " AS accuracy FROM predictions GROUP BY setting, answer_mode\"");
    out.println("  bin/infuse sql --warehouse " + w + " \"SELECT setting, subset, metric, round(value, 3) AS value, n,"
        + " round(ci_low, 3) AS ci_low, round(ci_high, 3) AS ci_high FROM scores ORDER BY setting, subset, metric\"");
    out.flush();
  }
}
