package dev.infuse.jobs.facts;

import dev.infuse.jobs.config.ConfigSection;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;

/**
 * The {@code facts} section: the synthetic-facts experiment of {@code facts-experiment}
 * (docs/EXPERIMENTS.md). See defaults.yaml for each key.
 *
 * @param input the facts corpus (QuALITY JSON Lines written by {@code make-facts}), relative to the
 *     Infuse home
 * @param mixtures mixture files (relative to the Infuse home), one shard build per mixture and
 *     token target
 * @param tokenTargets the builds' {@code shards.total_tokens}, smallest first
 * @param passes training passes over each build: a build of S sequences trains ceil(passes * S /
 *     train.batch_size) steps
 * @param output where the builds and models go, relative to the warehouse: {@code
 *     <output>/shards/<mixture>-<tokens>} and {@code <output>/models/<mixture>-<tokens>}
 * @param rag whether RAG with the model-free reader is evaluated beside the models (chunk, index,
 *     retrieve, answer)
 * @param report whether the report is written at the end
 */
public record FactsConfig(
    String input,
    List<String> mixtures,
    List<Long> tokenTargets,
    int passes,
    String output,
    boolean rag,
    boolean report)
    implements ConfigSection {
  public FactsConfig {
    mixtures = mixtures == null ? List.of() : List.copyOf(mixtures);
    tokenTargets = tokenTargets == null ? List.of() : List.copyOf(tokenTargets);
  }

  @Override
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    if (input == null || input.isBlank()) {
      problems.add(
          "input: got nothing, expected the facts corpus written by make-facts, e.g."
              + " samples/facts/facts_dev.jsonl");
    }
    if (mixtures.isEmpty()) {
      problems.add(
          "mixtures: got [], expected one or more mixture files, e.g."
              + " [conf/mixtures/facts-qa-only.yaml]");
    }
    if (mixtures.size() != new HashSet<>(mixtures).size()) {
      problems.add("mixtures: got " + mixtures + ", expected each file once");
    }
    if (tokenTargets.isEmpty()) {
      problems.add("token_targets: got [], expected one or more token counts, e.g. [20000, 60000]");
    }
    for (int i = 0; i < tokenTargets.size(); i++) {
      Long target = tokenTargets.get(i);
      if (target == null || target <= 0) {
        problems.add("token_targets[" + i + "]: got " + target + ", expected a positive integer");
      } else if (i > 0 && tokenTargets.get(i - 1) != null && target <= tokenTargets.get(i - 1)) {
        problems.add(
            "token_targets: got "
                + tokenTargets
                + ", expected distinct token counts, smallest first");
      }
    }
    if (passes < 1) {
      problems.add("passes: got " + passes + ", expected an integer >= 1");
    }
    if (output == null || output.isBlank()) {
      problems.add("output: got nothing, expected a directory under the warehouse, e.g. facts");
    }
    return problems;
  }
}
