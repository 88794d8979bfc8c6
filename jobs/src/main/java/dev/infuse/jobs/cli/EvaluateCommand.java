package dev.infuse.jobs.cli;

import dev.infuse.jobs.config.ConfigException;
import dev.infuse.jobs.config.InfuseConfig;
import dev.infuse.jobs.evaluate.Evaluation;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.jobs.run.RecordedSteps;
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
    name = "evaluate",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "Run the whole SMT evaluation from the evaluate section.",
    description = {
      "From the evaluate section: chunk, index and retrieve; answer each benchmark "
          + "closed-book, with RAG, with each trained model and trained+RAG; score with bootstrap "
          + "CIs and paired comparisons; fit accuracy against ln(synthetic tokens) over the "
          + "models; write the HTML report. Every step is a recorded job in runs; the benchmarks "
          + "must be ingested first."
    })
public final class EvaluateCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin CommonOptions common;

  @Option(
      names = "--benchmarks",
      paramLabel = "B",
      split = ",",
      description = "Benchmarks to evaluate, e.g. quality,longhealth,financebench.")
  @ConfigKey("evaluate.benchmarks")
  List<String> benchmarks;

  @Option(
      names = "--settings",
      paramLabel = "S",
      split = ",",
      description = "closed_book, rag, trained and/or trained_rag.")
  @ConfigKey("evaluate.settings")
  List<String> settings;

  @Option(
      names = "--models",
      paramLabel = "DIR",
      split = ",",
      description =
          "Model directories from train, smallest sweep point first (models served by an"
              + " OpenAI-compatible endpoint: mappings in evaluate.models, see"
              + " docs/EXTERNAL_TRAINING.md).")
  @ConfigKey("evaluate.models")
  List<String> models;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    InfuseConfig config;
    Evaluation evaluation;
    try {
      config = common.loader(spec).load();
      evaluation = new Evaluation(config, true);
    } catch (ConfigException e) {
      return ExitCodes.invalidConfig(err, e);
    }
    return ExitCodes.ofChain(
        "evaluate",
        err,
        () ->
            SparkSessions.with(
                "infuse evaluate",
                config.spark().master(),
                config.spark().conf(),
                spark -> {
                  RecordedSteps steps =
                      new RecordedSteps(
                          spark, () -> common.loader(spec), evaluation.steps(), out, err);
                  Evaluation.Result result = evaluation.run(steps);
                  Evaluation.printSummary(Warehouse.of(spark, config), result, out);
                  return ExitCodes.OK;
                }));
  }
}
