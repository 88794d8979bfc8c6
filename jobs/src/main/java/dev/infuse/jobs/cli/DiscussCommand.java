package dev.infuse.jobs.cli;

import dev.infuse.jobs.maporl.DiscussJob;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "discuss",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "Multi-agent discussion (MAPoRL) of a benchmark's questions.",
    description = {
      "Every agent answers alone (turn 0), then sees the others' latest answers and answers again,"
          + " for discuss.turns turns; answers come from the last \\boxed{}, scored by"
          + " discuss.verifier. Agents are configured under discuss.agents, each with its own"
          + " backend and model; every call is cached in llm_calls, so a rerun sends nothing"
          + " that succeeded."
    })
public final class DiscussCommand extends JobCommand {
  @Option(
      names = "--benchmark",
      paramLabel = "NAME",
      description = "questions.benchmark to discuss (gsm8k, anli, or any with options).")
  @ConfigKey("discuss.benchmark")
  String benchmark;

  @Option(names = "--turns", paramLabel = "T", description = "Turns, the first answer included.")
  @ConfigKey("discuss.turns")
  Integer turns;

  @Option(
      names = "--max-questions",
      paramLabel = "N",
      description = "The first N questions by id; 0 for all.")
  @ConfigKey("discuss.max_questions")
  Integer maxQuestions;

  @Option(
      names = "--verifier",
      paramLabel = "exact|model|llm_judge",
      description = "How each answer is scored.")
  @ConfigKey("discuss.verifier")
  String verifier;

  @Option(
      names = "--feedback",
      paramLabel = "true|false",
      arity = "1",
      description = "Show each agent the verifier's scores from turn 1.")
  @ConfigKey("discuss.feedback")
  Boolean feedback;

  public DiscussCommand() {
    super(DiscussJob.NAME, run -> new DiscussJob(run).run());
  }
}
