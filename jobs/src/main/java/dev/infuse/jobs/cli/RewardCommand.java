package dev.infuse.jobs.cli;

import dev.infuse.jobs.maporl.RewardJob;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "reward",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "MAPoRL rewards and advantages, from rollouts or a JSONL file.",
    description = {
      "Reads the latest discussion's rollouts (or reward.discussion) and writes rewards; with"
          + " --input and --output, scores a JSONL file of (episode_id, agent_id, turn, score"
          + " [, correct]) lines from any system. docs/MAPORL.md has the formulas."
    })
public final class RewardCommand extends JobCommand {
  @Option(
      names = "--input",
      paramLabel = "FILE",
      description = "A JSONL file to score instead of rollouts.")
  @ConfigKey("reward.input")
  String input;

  @Option(
      names = "--output",
      paramLabel = "FILE",
      description = "With --input: the JSONL file written, with reward, base and bonus.")
  @ConfigKey("reward.output")
  String output;

  @Option(
      names = "--horizon",
      paramLabel = "discounted_sum|last|current",
      description = "Which turns a reward counts.")
  @ConfigKey("reward.horizon")
  String horizon;

  @Option(
      names = "--share",
      paramLabel = "all|individual",
      description = "Whose later scores count.")
  @ConfigKey("reward.share")
  String share;

  @Option(
      names = "--convention",
      paramLabel = "paper|reference-code",
      description = "The signs of the persuasion terms.")
  @ConfigKey("reward.incentive_convention")
  String convention;

  public RewardCommand() {
    super(RewardJob.NAME, run -> new RewardJob(run).run());
  }
}
