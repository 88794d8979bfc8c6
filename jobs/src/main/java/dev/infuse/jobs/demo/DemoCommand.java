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
import dev.infuse.jobs.spark.SparkSessions;
import dev.infuse.jobs.train.TrainJob;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code demo}: the main pipeline on the embedded defaults, with no model server and nothing to
 * download: ingest the QuALITY sample shipped in {@code samples/}, chunk it, generate synthetic data,
 * train a tiny model on it and query that model. Each job is a normal recorded run, in one Spark
 * session. Later recipes extend this same command.
 */
@Command(name = "demo", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Run the main pipeline on the embedded defaults: ingest the QuALITY sample, chunk it, generate",
        "synthetic QA and documents (rephrase, entity, focal) with the model-free extractive backend, train a",
        "tiny causal LM on all of it, and ask that model questions through the djl backend.",
        "Writes to ./warehouse unless --warehouse is given, and prints how to look at the result."})
public final class DemoCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Mixin
  CommonOptions common;

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
      config = loader.load();
    } catch (ConfigException e) {
      err.println("error: " + e.getMessage());
      err.flush();
      return 2;
    }
    SparkSessions.Session session = SparkSessions.getOrCreate("infuse demo", config.spark().master(), config.spark().conf());
    try {
      out.println("== 1/7 ingest: QuALITY sample -> documents, questions");
      int code = step(IngestCommand::ingest, new JobRun("ingest", session.spark(), config, out, err));
      if (code != 0) {
        return code;
      }
      out.println("== 2/7 chunk: documents -> chunks");
      code = step(run -> new ChunkJob(run).run(), new JobRun("chunk", session.spark(), config, out, err));
      if (code != 0) {
        return code;
      }
      out.println("== 3/7 embed: chunks -> chunk_embeddings (all-MiniLM-L6-v2, ONNX Runtime through DJL)");
      code = step(run -> new EmbedJob(run).run(), new JobRun(EmbedJob.NAME, session.spark(), config, out, err));
      if (code != 0) {
        return code;
      }
      out.println("== 4/7 gen-qa: chunks -> synthetic_qa (llm.backend " + config.llm().backend() + ")");
      code = step(run -> new GenQaJob(run).run(), new JobRun(GenQaJob.NAME, session.spark(), config, out, err));
      if (code != 0) {
        return code;
      }
      out.println("== 5/7 gen-docs: documents -> synthetic_docs (rephrase, entity, focal)");
      code = step(run -> new GenDocsJob(run).run(), new JobRun(GenDocsJob.NAME, session.spark(), config, out, err));
      if (code != 0) {
        return code;
      }
      out.println("== 6/7 train: documents + synthetic_docs + synthetic_qa -> a tiny causal LM (DJL, PyTorch engine)");
      code = step(run -> new TrainJob(run).run(), new JobRun(TrainJob.NAME, session.spark(), config, out, err));
      if (code != 0) {
        return code;
      }
      Path modelDir = TrainJob.modelDir(config.warehouse(), config.train().modelDir());
      out.println("== 7/7 ask the trained model through the djl backend (tiny and briefly trained: this proves the"
          + " path, not the quality)");
      TrainedModelProbe.run(new Warehouse(session.spark(), config.warehouse()), config, modelDir, out);
      printWhereToLook(new Warehouse(session.spark(), config.warehouse()), config, started, out);
      return 0;
    } finally {
      if (session.created()) {
        session.spark().stop();
      }
    }
  }

  private static int step(java.util.function.Function<JobRun, RunCounts> job, JobRun run) {
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

  private static void printWhereToLook(Warehouse warehouse, InfuseConfig config, long started, PrintWriter out) {
    out.printf(Locale.ROOT, "%nDemo finished in %.1f s. Warehouse: %s%n", (System.nanoTime() - started) / 1e9,
        warehouse.root());
    for (String table : warehouse.tables()) {
      out.printf(Locale.ROOT, "  %-15s %6d rows  %s%n", table, warehouse.read(table).count(), warehouse.path(table));
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
    out.println("  bin/infuse sql --warehouse " + w + " \"SELECT step, loss, lr, tokens_per_second FROM train_metrics ORDER BY step\"");
    out.flush();
  }
}
