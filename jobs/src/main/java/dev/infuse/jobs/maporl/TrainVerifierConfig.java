package dev.infuse.jobs.maporl;

import dev.infuse.jobs.config.ConfigSection;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code train_verifier} section: how {@code train-verifier} trains the {@code model} verifier
 * of {@code discuss} from rollouts. See defaults.yaml for each key.
 *
 * @param discussions the rollouts.discussion_id values to learn from; empty for every rollout
 * @param baseModel the model directory the backbone starts from (the reference starts from the SFT
 *     policy); relative paths are under the warehouse. Null by default, which every config loads
 *     with: {@code train-verifier} itself asks for it
 * @param output the verifier directory written; relative paths are under the warehouse
 * @param perClassPerQuestion at most this many correct and as many wrong responses per question
 * @param steps optimizer steps
 * @param batchSize examples per step
 * @param learningRate AdamW's initial rate, decayed linearly to 0
 * @param seed balancing, order of examples and the head's initialisation; null for run.seed
 */
public record TrainVerifierConfig(
    List<String> discussions,
    String baseModel,
    String output,
    int perClassPerQuestion,
    int steps,
    int batchSize,
    double learningRate,
    Long seed)
    implements ConfigSection {

  public TrainVerifierConfig {
    discussions = discussions == null ? List.of() : List.copyOf(discussions);
  }

  @Override
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    if (output == null || output.isBlank()) {
      problems.add("output: got nothing, expected the verifier directory to write");
    }
    if (perClassPerQuestion <= 0) {
      problems.add(
          "per_class_per_question: got " + perClassPerQuestion + ", expected a positive integer");
    }
    if (steps <= 0) {
      problems.add("steps: got " + steps + ", expected a positive integer");
    }
    if (batchSize <= 0) {
      problems.add("batch_size: got " + batchSize + ", expected a positive integer");
    }
    if (!(learningRate >= 0) || Double.isInfinite(learningRate)) {
      problems.add("learning_rate: got " + learningRate + ", expected a finite number >= 0");
    }
    for (String id : discussions) {
      if (id == null || id.isBlank()) {
        problems.add("discussions: got a blank id, expected rollouts.discussion_id values");
        break;
      }
    }
    return problems;
  }
}
