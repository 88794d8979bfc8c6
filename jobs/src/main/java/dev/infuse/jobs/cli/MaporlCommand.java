package dev.infuse.jobs.cli;

import dev.infuse.jobs.config.ConfigException;
import dev.infuse.jobs.config.InfuseConfig;
import dev.infuse.jobs.maporl.CoTraining;
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
    name = "maporl",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "Co-train the discussion's agents with RL (MAPoRL).",
    description = {
      "Each iteration: discuss (every agent served by djl from its own current policy), reward,"
          + " and one policy update per agent, each its own Spark task (PPO with a value head, or"
          + " GRPO); then score the per-turn metrics of every iteration. Rerun the same command"
          + " to resume a killed run. docs/MAPORL.md"
    })
public final class MaporlCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin CommonOptions common;

  @Option(names = "--iterations", paramLabel = "N", description = "Co-training iterations.")
  @ConfigKey("maporl.iterations")
  Integer iterations;

  @Option(
      names = "--policies",
      paramLabel = "DIR",
      split = ",",
      description = "Starting model directories, one per discuss.agents entry.")
  @ConfigKey("maporl.policies")
  List<String> policies;

  @Option(
      names = "--train-agents",
      paramLabel = "ID",
      split = ",",
      description = "Agents updated; default all (co-training). One id: the single-agent baseline.")
  @ConfigKey("maporl.train_agents")
  List<String> trainAgents;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    InfuseConfig config;
    CoTraining training;
    try {
      config = common.loader(spec).load();
      training = new CoTraining(config);
    } catch (ConfigException e) {
      return ExitCodes.invalidConfig(err, e);
    }
    return ExitCodes.ofChain(
        "maporl",
        err,
        () ->
            SparkSessions.with(
                "infuse maporl",
                config.spark().master(),
                config.spark().conf(),
                spark -> {
                  RecordedSteps steps =
                      new RecordedSteps(
                          spark, () -> common.loader(spec), training.steps(), out, err);
                  List<String> discussions = training.run(steps);
                  out.printf(
                      "maporl: %s, %d iteration(s), discussions %s; per-iteration rows in"
                          + " maporl_updates, per-turn metrics in discussion_scores%n",
                      training.trainingId(), discussions.size(), discussions);
                  return ExitCodes.OK;
                }));
  }
}
