package dev.infuse.jobs.cli;

import dev.infuse.jobs.config.ConfigException;
import dev.infuse.jobs.config.ConfigLoader;
import dev.infuse.jobs.config.InfuseConfig;
import dev.infuse.jobs.evaluate.Evaluation;
import dev.infuse.jobs.io.Warehouse;
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
    description = {
      "The whole evaluation of Synthetic Mixed Training from one config (the evaluate section): chunk,",
      "index and retrieve; answer each benchmark closed-book, with RAG, with each trained model and trained+RAG;",
      "score with bootstrap CIs and paired comparisons; fit accuracy against ln(synthetic tokens) over the models;",
      "write the HTML report. Every step is a recorded job in runs; the benchmarks must be ingested first."
    })
public final class EvaluateCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin CommonOptions common;

  @Option(
      names = "--benchmarks",
      paramLabel = "B",
      split = ",",
      description =
          "Benchmarks to evaluate, e.g. quality,longhealth,financebench (evaluate.benchmarks).")
  List<String> benchmarks;

  @Option(
      names = "--settings",
      paramLabel = "S",
      split = ",",
      description = "closed_book, rag, trained and/or trained_rag (evaluate.settings).")
  List<String> settings;

  @Option(
      names = "--models",
      paramLabel = "DIR",
      split = ",",
      description = "Model directories from train, smallest sweep point first (evaluate.models).")
  List<String> models;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    InfuseConfig config;
    Evaluation evaluation;
    try {
      config = loader().load();
      evaluation = new Evaluation(config, true);
    } catch (ConfigException e) {
      err.println("error: " + e.getMessage());
      err.flush();
      return 2;
    }
    SparkSessions.Session session =
        SparkSessions.getOrCreate(
            "infuse evaluate", config.spark().master(), config.spark().conf());
    try {
      RecordedSteps steps =
          new RecordedSteps(session.spark(), this::loader, evaluation.steps(), out, err);
      Evaluation.Result result = evaluation.run(steps);
      Evaluation.printSummary(new Warehouse(session.spark(), config.warehouse()), result, out);
      return 0;
    } catch (RecordedSteps.StepFailedException e) {
      err.println("error: evaluate stopped: " + e.getMessage());
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

  /** The user's config with this command's flags on top; each step starts from a fresh one. */
  private ConfigLoader loader() {
    ConfigLoader loader = common.loader();
    if (benchmarks != null) {
      loader.setStrings("evaluate.benchmarks", benchmarks);
    }
    if (settings != null) {
      loader.setStrings("evaluate.settings", settings);
    }
    if (models != null) {
      loader.setStrings("evaluate.models", models);
    }
    return loader;
  }
}
