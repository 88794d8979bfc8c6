package dev.infuse.udfs.lm.rl;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.training.GradientCollector;
import dev.infuse.udfs.lm.GraphConstants;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/**
 * Trains a {@link ScalarVerifier} as the reference trains its reward model ({@code
 * utils/reward_model.py}): binary cross-entropy between the sigmoid score at EVERY response token
 * and the example's 0/1 label, averaged over the example's response tokens, then over the batch
 * ({@code BCELoss(reduction="mean")} per example, summed and divided by the batch size). So the
 * verifier learns to judge partial answers too, though only the last token's score is read.
 *
 * <p>Differences: the loss is computed from the pre-sigmoid logits ({@code max(z, 0) − z·y + log(1
 * + exp(−|z|))}), which equals BCE on the sigmoid without PyTorch's clamp of the log at −100; the
 * learning rate decays linearly to 0 over {@code steps} without the reference's 5 warmup steps
 * (HuggingFace Trainer's default schedule otherwise); AdamW betas (0.9, 0.999), no weight decay,
 * and global-norm clipping at 1.0, HuggingFace Trainer's defaults. The whole backbone is trained;
 * the reference trains LoRA adapters.
 */
public final class VerifierTrainer {
  /** HuggingFace Trainer's {@code max_grad_norm}. */
  public static final double GRADIENT_CLIP = 1.0;

  private VerifierTrainer() {}

  /**
   * How to train.
   *
   * @param steps optimizer steps
   * @param batchSize examples per step (the reference uses 4)
   * @param learningRate AdamW's initial rate (the reference's GSM8k config uses 2e-4 with LoRA)
   * @param seed orders the examples
   */
  public record Config(int steps, int batchSize, double learningRate, long seed) {
    /** Every problem as "key: got X, expected Y"; empty when valid. */
    public List<String> problems() {
      List<String> problems = new ArrayList<>();
      if (steps <= 0) {
        problems.add("steps: got " + steps + ", expected a positive integer");
      }
      if (batchSize <= 0) {
        problems.add("batch_size: got " + batchSize + ", expected a positive integer");
      }
      if (!(learningRate >= 0) || Double.isInfinite(learningRate)) {
        problems.add("learning_rate: got " + learningRate + ", expected a finite number >= 0");
      }
      return problems;
    }
  }

  /**
   * Trains {@code verifier} in place; returns the last step's loss. Batches are consecutive slices
   * of a seeded shuffle of {@code examples}, reshuffled each pass.
   */
  public static double train(
      ScalarVerifier verifier, List<VerifierExample> examples, Config config) {
    List<String> problems = new ArrayList<>(config.problems());
    if (examples == null || examples.isEmpty()) {
      problems.add("examples: empty, expected at least one");
    } else {
      for (int i = 0; i < examples.size() && problems.size() < 5; i++) {
        VerifierExample example = examples.get(i);
        if (example.label() != 0 && example.label() != 1) {
          problems.add("examples[" + i + "]: label " + example.label() + ", expected 0 or 1");
        }
        problems.addAll(
            verifier.problems("examples[" + i + "]", example.promptIds(), example.responseIds()));
      }
    }
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException("verifier training: " + String.join("; ", problems));
    }
    int n = examples.size();
    int batchSize = Math.min(config.batchSize(), n);
    double loss = Double.NaN;
    try (NDManager manager = NDManager.newBaseManager(verifier.backbone().device(), "PyTorch");
        RlOptimizer optimizer =
            new RlOptimizer(
                RlOptimizer.parametersOf(verifier.backbone(), verifier.head()), manager)) {
      int pass = 0;
      int[] order = PolicyUpdater.permutation(n, config.seed(), pass, 0);
      int cursor = 0;
      for (int step = 0; step < config.steps(); step++) {
        int[] rows = new int[batchSize];
        for (int r = 0; r < batchSize; r++) {
          if (cursor == n) {
            pass++;
            order = PolicyUpdater.permutation(n, config.seed(), pass, 0);
            cursor = 0;
          }
          rows[r] = order[cursor++];
        }
        double learningRate = config.learningRate() * (1 - (double) step / config.steps());
        try (NDScope scope = new NDScope()) {
          List<int[]> prompts = new ArrayList<>();
          List<int[]> responses = new ArrayList<>();
          double[][] labels = new double[batchSize][];
          for (int r = 0; r < batchSize; r++) {
            VerifierExample example = examples.get(rows[r]);
            prompts.add(example.promptIds());
            responses.add(example.responseIds());
            labels[r] = new double[example.responseIds().length];
            Arrays.fill(labels[r], example.label());
          }
          SequenceBatch batch =
              new SequenceBatch(
                  prompts, responses, verifier.backbone().config().padTokenId(), manager);
          NDArray mask = batch.mask(SequenceBatch.AT_TOKEN);
          NDArray target = batch.grid(labels, SequenceBatch.AT_TOKEN);
          NDArray perExample = mask.sum(new int[] {1});
          try (GradientCollector collector = Engine.getEngine("PyTorch").newGradientCollector()) {
            NDArray z = verifier.tokenLogits(batch);
            NDArray bce =
                GraphConstants.maximum(z, 0f)
                    .sub(z.mul(target))
                    .add(z.abs().neg().exp().add(1f).log());
            NDArray value = bce.mul(mask).sum(new int[] {1}).div(perExample).mean();
            collector.backward(value);
            loss = value.getFloat();
          }
          double norm = optimizer.step(learningRate, GRADIENT_CLIP);
          if (!Double.isFinite(loss) || !Double.isFinite(norm)) {
            throw new IllegalStateException(
                "verifier training diverged at step "
                    + (step + 1)
                    + " (loss "
                    + loss
                    + ", gradient norm "
                    + norm
                    + "); lower learning_rate");
          }
        }
      }
    }
    return loss;
  }

  /**
   * Balances examples per question, as the reference's {@code reward_data_balancing.py} aims for
   * ({@code DESIRED_ANSWERS_PER_TYPE = 10}): per question, {@code k = min(perClassPerQuestion,
   * #correct, #wrong)} correct and {@code k} wrong examples, drawn by a seeded shuffle; a question
   * with only one class contributes nothing. The reference instead generates more answers until it
   * has enough of each; this only subsamples. Output keeps questions in first-seen order, correct
   * before wrong.
   *
   * @param questionId the question an example answers
   * @param label 1 correct, 0 wrong
   */
  public static <T> List<T> balance(
      List<T> examples,
      Function<T, String> questionId,
      ToIntFunction<T> label,
      int perClassPerQuestion,
      long seed) {
    if (perClassPerQuestion <= 0) {
      throw new IllegalArgumentException(
          "perClassPerQuestion: got " + perClassPerQuestion + ", expected a positive integer");
    }
    Map<String, List<List<T>>> byQuestion = new LinkedHashMap<>();
    for (T example : examples) {
      int value = label.applyAsInt(example);
      if (value != 0 && value != 1) {
        throw new IllegalArgumentException(
            "label: got "
                + value
                + " for question "
                + questionId.apply(example)
                + ", expected 0 or 1");
      }
      byQuestion
          .computeIfAbsent(
              questionId.apply(example), q -> List.of(new ArrayList<>(), new ArrayList<>()))
          .get(1 - value)
          .add(example);
    }
    List<T> out = new ArrayList<>();
    byQuestion.forEach(
        (question, classes) -> {
          int k =
              Math.min(perClassPerQuestion, Math.min(classes.get(0).size(), classes.get(1).size()));
          for (int c = 0; c < 2; c++) {
            List<T> members = classes.get(c);
            SplittableRandom random =
                new SplittableRandom(seed ^ (0x9E3779B97F4A7C15L * (question.hashCode() * 2L + c)));
            List<T> shuffled = new ArrayList<>(members);
            for (int i = shuffled.size() - 1; i > 0; i--) {
              int j = random.nextInt(i + 1);
              T swap = shuffled.get(i);
              shuffled.set(i, shuffled.get(j));
              shuffled.set(j, swap);
            }
            out.addAll(shuffled.subList(0, k));
          }
        });
    return out;
  }
}
