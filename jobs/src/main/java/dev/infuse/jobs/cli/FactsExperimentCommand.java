package dev.infuse.jobs.cli;

import dev.infuse.jobs.config.ConfigException;
import dev.infuse.jobs.config.InfuseConfig;
import dev.infuse.jobs.facts.FactsExperiment;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.jobs.run.RecordedSteps;
import dev.infuse.jobs.spark.SparkSessions;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
    name = "facts-experiment",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "Run the synthetic-facts learning experiment.",
    description = {
      "On the corpus of make-facts (facts.input): ingest; gen-qa for the trained people only "
          + "(extractive); gen-docs rephrases for everyone; build-shards per mixture and token "
          + "target; train one model from scratch per build; RAG with the model-free reader; each "
          + "model closed book by log-likelihood; score per subset (held_out, trained) with "
          + "bootstrap CIs and paired comparisons of the mixtures; a scaling fit per mixture and "
          + "subset; the report. Use a warehouse of its own. The experiment's config is "
          + "conf/experiments/facts.yaml (docs/EXPERIMENTS.md)."
    })
public final class FactsExperimentCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin CommonOptions common;

  @Option(
      names = "--mixtures",
      paramLabel = "FILE",
      split = ",",
      description = "Mixture files, one shard build per mixture and token target.")
  @ConfigKey("facts.mixtures")
  List<String> mixtures;

  @Option(
      names = "--token-targets",
      paramLabel = "N",
      split = ",",
      description = "Token targets of the builds (shards.total_tokens), smallest first.")
  @ConfigKey("facts.token_targets")
  List<Long> tokenTargets;

  @Option(names = "--passes", paramLabel = "P", description = "Training passes over each build.")
  @ConfigKey("facts.passes")
  Integer passes;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    long started = System.nanoTime();
    FactsExperiment experiment;
    InfuseConfig config;
    try {
      experiment = new FactsExperiment(() -> common.loader(spec));
      config = experiment.config().load();
    } catch (ConfigException e) {
      return ExitCodes.invalidConfig(err, e);
    }
    return ExitCodes.ofChain(
        "facts-experiment",
        err,
        () ->
            SparkSessions.with(
                "infuse facts-experiment",
                config.spark().master(),
                config.spark().conf(),
                spark -> {
                  RecordedSteps steps =
                      new RecordedSteps(spark, experiment::config, experiment.steps(), out, err);
                  FactsExperiment.Result result = experiment.run(steps);
                  experiment.printSummary(Warehouse.of(spark, config), result, out);
                  out.printf(
                      Locale.ROOT,
                      "%nfacts-experiment finished in %.1f s%s%n",
                      (System.nanoTime() - started) / 1e9,
                      result.reportRun() == null
                          ? ""
                          : "; report under "
                              + config.warehouse()
                              + "/reports/"
                              + result.scoreRun());
                  out.flush();
                  return ExitCodes.OK;
                }));
  }
}
