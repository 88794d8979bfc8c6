package dev.infuse.jobs.cli;

import dev.infuse.jobs.behavior.MineHardJob;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "mine-hard",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "BehaviorBench-Hard: the behaviour tasks a panel of runs fails.",
    description = {
      "Selects the tasks of behavior_tasks that at least behavior.hard.min_failures of the panel's"
          + " behaviour answer runs fail (wrong behaviour, or a flag naming the wrong thing), writes"
          + " them with the rule and the panel to behavior_tasks_hard, and each run's macro-F1 on"
          + " all tasks and on Hard to behavior_scores. docs/BEHAVIOR-SCORING.md."
    })
public final class MineHardCommand extends JobCommand {
  @Option(
      names = "--runs",
      paramLabel = "RUN",
      split = ",",
      description = "The panel: behaviour answer runs; default every run on behavior_tasks.")
  @ConfigKey("behavior.hard.runs")
  List<String> runs;

  @Option(
      names = "--min-failures",
      paramLabel = "M",
      description = "m: the panel runs that must fail a task.")
  @ConfigKey("behavior.hard.min_failures")
  Integer minFailures;

  @Option(
      names = "--max-per-category",
      paramLabel = "N",
      description = "Stratify: at most N Hard tasks per category, the most failed first.")
  @ConfigKey("behavior.hard.max_per_category")
  Integer maxPerCategory;

  public MineHardCommand() {
    super(MineHardJob.NAME, run -> new MineHardJob(run).run());
  }
}
