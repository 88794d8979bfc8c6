package dev.infuse.jobs.cli;

import dev.infuse.jobs.config.ConfigException;
import dev.infuse.jobs.config.InfuseConfig;
import dev.infuse.jobs.demo.DemoPipeline;
import dev.infuse.jobs.spark.SparkSessions;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "Run the whole pipeline on the embedded defaults.",
    description = {
      "Ingest the QuALITY sample, chunk it, generate synthetic QA and documents (rephrase, "
          + "entity, focal) with the model-free extractive backend, build deduplicated, "
          + "decontaminated training shards (Parquet, JSONL, Megatron) at three token counts, "
          + "train a tiny causal LM on each, ask the largest questions through the djl backend, "
          + "then evaluate: RAG with the model-free reader, each model closed-book and with RAG, "
          + "scored with CIs and paired comparisons, the scaling fit over the three models, and "
          + "the HTML report. Writes to ./warehouse unless --warehouse is given, and prints how "
          + "to look at the result."
    })
public final class DemoCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin CommonOptions common;

  @Option(
      names = "--stop-after",
      paramLabel = "STEP",
      description =
          "Run only the first STEP steps and keep their tables, e.g. 13 for the SMT data and"
              + " shards without training (default: every step).")
  Integer stopAfter;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    long started = System.nanoTime();
    DemoPipeline demo;
    InfuseConfig config;
    try {
      demo = new DemoPipeline(() -> common.loader(spec));
      config = demo.config().load();
      if (stopAfter != null && (stopAfter < 1 || stopAfter > demo.steps())) {
        throw new ConfigException(
            List.of(
                "--stop-after: got " + stopAfter + ", expected a step from 1 to " + demo.steps()));
      }
    } catch (ConfigException e) {
      return ExitCodes.invalidConfig(err, e);
    }
    int lastStep = stopAfter == null ? demo.steps() : stopAfter;
    return ExitCodes.ofChain(
        "demo",
        err,
        () ->
            SparkSessions.with(
                "infuse demo",
                config.spark().master(),
                config.spark().conf(),
                spark -> {
                  demo.run(spark, out, err, started, lastStep);
                  return ExitCodes.OK;
                }));
  }
}
