package dev.infuse.jobs.cli;

import dev.infuse.jobs.behavior.SftDataJob;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "sft-data",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "BehaviorSFT data: behaviour tasks as chat examples with behavioural tokens.",
    description = {
      "Writes every task of behavior_tasks as a chat example (messages) whose target starts with"
          + " its gold behaviour's token (behavior.tokens), to train.jsonl and, for the tasks a hash"
          + " keeps apart, heldout.jsonl under behavior.sft.output. With --rewrite llm the target"
          + " texts are rewritten by the llm section's model and checked for content."
    })
public final class SftDataCommand extends JobCommand {
  @Option(names = "--output", paramLabel = "DIR", description = "The directory written.")
  @ConfigKey("behavior.sft.output")
  String output;

  @Option(
      names = "--held-out-fraction",
      paramLabel = "F",
      description = "The fraction of tasks kept out of training.")
  @ConfigKey("behavior.sft.held_out_fraction")
  Double heldOutFraction;

  @Option(
      names = "--rewrite",
      paramLabel = "template|llm",
      description =
          "Where target texts come from: the templates, or the llm section's model rewriting them"
              + " (a rewrite that is not content-correct keeps the template).")
  @ConfigKey("behavior.sft.rewrite")
  String rewrite;

  public SftDataCommand() {
    super(SftDataJob.NAME, run -> new SftDataJob(run).run());
  }
}
