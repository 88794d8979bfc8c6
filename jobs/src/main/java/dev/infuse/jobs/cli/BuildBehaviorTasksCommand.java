package dev.infuse.jobs.cli;

import dev.infuse.jobs.behavior.BuildBehaviorTasksJob;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "build-behavior-tasks",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "Clinical behaviour tasks from MEDEC, AgentClinic, ACI-BENCH and MedQA.",
    description = {
      "Reads what ingest --format medec|agentclinic|aci-bench|medqa wrote and builds"
          + " behavior_tasks under behavior.taxonomy: reactive, proactive and restraint tasks"
          + " whose gold behaviour is known by construction (MEDEC's injected errors, seeded"
          + " perturbations of AgentClinic and ACI-BENCH cases). docs/BEHAVIOR.md."
    })
public final class BuildBehaviorTasksCommand extends JobCommand {
  @Option(
      names = "--taxonomy",
      paramLabel = "FILE",
      description = "The taxonomy: types and categories.")
  @ConfigKey("behavior.taxonomy")
  String taxonomy;

  @Option(
      names = "--sources",
      paramLabel = "FORMAT",
      split = ",",
      description = "Ingest formats to build from: medec, agentclinic, aci-bench, medqa.")
  @ConfigKey("behavior.sources")
  List<String> sources;

  @Option(
      names = "--max-records-per-source",
      paramLabel = "N",
      description = "At most N source records of each source, the first by key.")
  @ConfigKey("behavior.max_records_per_source")
  Integer maxRecordsPerSource;

  @Option(
      names = "--conversation",
      paramLabel = "note|template|llm",
      description =
          "How a case is shown: as written, MEDEC notes as a fixed clinicians' round, or rewritten"
              + " as a clinicians' conversation by the llm section's model (checked before use).")
  @ConfigKey("behavior.conversation")
  String conversation;

  @Option(names = "--seed", paramLabel = "N", description = "The seed tasks are built with.")
  @ConfigKey("behavior.seed")
  Long seed;

  public BuildBehaviorTasksCommand() {
    super(BuildBehaviorTasksJob.NAME, run -> new BuildBehaviorTasksJob(run).run());
  }
}
