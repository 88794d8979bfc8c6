package dev.infuse.jobs.cli;

import dev.infuse.jobs.maporl.TrainVerifierJob;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "train-verifier",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "MAPoRL's model verifier, trained from rollouts.",
    description = {
      "Balances each question's correct and wrong rollouts, then trains a scalar head on"
          + " train_verifier.base_model with binary cross-entropy at every response token, in one"
          + " Spark task; discuss --verifier model reads the directory it writes"
          + " (discuss.verifier_model)."
    })
public final class TrainVerifierCommand extends JobCommand {
  @Option(
      names = "--base-model",
      paramLabel = "DIR",
      description = "The model directory the backbone starts from (the SFT policy).")
  @ConfigKey("train_verifier.base_model")
  String baseModel;

  @Option(names = "--output", paramLabel = "DIR", description = "The verifier directory written.")
  @ConfigKey("train_verifier.output")
  String output;

  @Option(names = "--steps", paramLabel = "N", description = "Optimizer steps.")
  @ConfigKey("train_verifier.steps")
  Integer steps;

  public TrainVerifierCommand() {
    super(TrainVerifierJob.NAME, run -> new TrainVerifierJob(run).run());
  }
}
