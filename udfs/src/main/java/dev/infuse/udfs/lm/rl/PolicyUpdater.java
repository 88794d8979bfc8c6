package dev.infuse.udfs.lm.rl;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.types.DataType;
import ai.djl.pytorch.jni.JniUtils;
import ai.djl.training.GradientCollector;
import dev.infuse.udfs.lm.DecoderLm;
import dev.infuse.udfs.lm.GraphConstants;
import dev.infuse.udfs.lm.LmConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * One RL update of one policy from a batch of scored rollouts, as TRL's PPOv2 trainer (the one
 * MAPoRL modifies) does it, or GRPO's variant of the same clipped objective.
 *
 * <p><b>PPO.</b> Before the epochs, with gradients off: the current policy's log-probabilities of
 * the response tokens {@code logπ_old} and values {@code V_old} (the {@link ValueHead} on the
 * policy's final hidden state at the position that predicts the token), and the frozen reference's
 * {@code logπ_ref}. Per-token rewards {@code r_t = −β·(logπ_old − logπ_ref)}, plus the score at the
 * last response token ({@link Advantages#tokenRewards}); GAE with γ, λ ({@link Advantages#gae});
 * returns {@code R = A + V_old}; advantages whitened over all response tokens of the batch. Then
 * {@code epochs} passes over seeded shuffled minibatches, each one AdamW step on
 *
 * <pre>
 *   ratio = exp(logπ − logπ_old)
 *   pg    = max(−A·ratio, −A·clip(ratio, 1 − ε, 1 + ε))
 *   vf    = ½·max((V − R)², (clip(V, V_old − ε_v, V_old + ε_v) − R)²)
 *   loss  = mean(pg) + vf_coef·mean(vf)
 * </pre>
 *
 * with the means over the minibatch's response tokens (prompt and padding masked out).
 *
 * <p><b>GRPO.</b> No value head: every response token gets the sample's given advantage,
 * unwhitened. The KL to the reference is a loss term, not a reward: DeepSeekMath's k3 estimator
 * {@code exp(logπ_ref − logπ) − (logπ_ref − logπ) − 1} (unbiased, non-negative), averaged over
 * response tokens like the policy loss and weighted by {@code klCoef}: {@code loss = mean(pg) +
 * β·mean(k3)}.
 *
 * <p>Where this differs from TRL PPOv2 / the reference:
 *
 * <ul>
 *   <li>The value head reads the policy's own hidden states (one network, as TRL's older {@code
 *       AutoModelForCausalLMWithValueHead}); PPOv2 keeps a separate value network (initialised from
 *       the reward model). The value loss therefore also trains the policy backbone, scaled by
 *       {@code vfCoef}.
 *   <li>The score is credited at the last response token, not one past it (see {@link
 *       Advantages#tokenRewards}); so the value loss needs no extra position.
 *   <li>Log-probabilities use the raw logits: PPOv2 divides them by the sampling temperature (0.7
 *       in the reference). Sample at temperature 1 to stay on-policy.
 *   <li>One optimizer step per minibatch; the reference steps per micro-batch through accelerate's
 *       gradient accumulation, which comes to the same.
 *   <li>AdamW: see {@link RlOptimizer} (weight decay on {@code *.weight} only); optional gradient
 *       clipping, which the reference does not do.
 *   <li>Statistics (approx KL, clip fraction) are masked means over response tokens; TRL's approx
 *       KL averages over padding too.
 * </ul>
 *
 * <p>DJL's PyTorch engine allows one gradient collector per JVM at a time, so one update runs at a
 * time per JVM.
 */
public final class PolicyUpdater {
  private PolicyUpdater() {}

  /**
   * Updates {@code state}'s policy (and value head) with update number {@code state.updates()} and
   * advances that counter.
   */
  public static UpdateStats update(
      RlAgentState state, DecoderLm reference, List<RlSample> samples, PolicyUpdateConfig config) {
    UpdateStats stats =
        update(
            state.policy(),
            reference,
            state.valueHead(),
            samples,
            config,
            state.updates(),
            state.optimizer());
    state.setUpdates(state.updates() + 1);
    return stats;
  }

  /**
   * Updates {@code policy} (and {@code valueHead}) in place from {@code samples}.
   *
   * @param reference the frozen reference policy; not changed
   * @param valueHead PPO's value function; null for GRPO (and ignored there)
   * @param updateIndex the 0-based global update count, for the learning-rate decay and shuffling
   * @param optimizer AdamW over the policy's and value head's parameters ({@link
   *     RlOptimizer#parametersOf})
   */
  public static UpdateStats update(
      DecoderLm policy,
      DecoderLm reference,
      ValueHead valueHead,
      List<RlSample> samples,
      PolicyUpdateConfig config,
      int updateIndex,
      RlOptimizer optimizer) {
    boolean ppo = config.usesValueHead();
    List<String> problems = new ArrayList<>(config.problems());
    if (problems.isEmpty()) {
      problems.addAll(problems(policy, reference, valueHead, samples, ppo, optimizer));
    }
    if (updateIndex < 0) {
      problems.add("updateIndex: got " + updateIndex + ", expected 0 or more");
    }
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException("rl update: " + String.join("; ", problems));
    }
    int n = samples.size();
    int pad = policy.config().padTokenId();
    double learningRate = config.learningRateAt(updateIndex);
    double[][] oldLogprobs = new double[n][];
    double[][] refLogprobs = new double[n][];
    double[][] oldValues = new double[n][];
    try (NDManager manager = NDManager.newBaseManager(policy.device(), "PyTorch")) {
      boolean recording = JniUtils.isGradMode();
      JniUtils.setGradMode(false);
      try {
        for (int start = 0; start < n; start += config.miniBatchSize()) {
          int[] rows = range(start, Math.min(n, start + config.miniBatchSize()));
          try (NDScope scope = new NDScope()) {
            SequenceBatch batch = batch(samples, rows, pad, manager);
            NDArray[] out =
                policy.forwardTrainingWithHidden(batch.tokens, batch.positions, batch.attention);
            double[][] logprobs =
                batch.extract(batch.nextTokenLogprobs(out[0]), SequenceBatch.PREDICTING);
            double[][] ref =
                batch.extract(
                    batch.nextTokenLogprobs(
                        reference.forwardTraining(batch.tokens, batch.positions, batch.attention)),
                    SequenceBatch.PREDICTING);
            double[][] values =
                ppo
                    ? batch.extract(
                        valueHead.forward(batch.predicting(out[1])), SequenceBatch.PREDICTING)
                    : null;
            for (int r = 0; r < rows.length; r++) {
              oldLogprobs[rows[r]] = logprobs[r];
              refLogprobs[rows[r]] = ref[r];
              oldValues[rows[r]] = ppo ? values[r] : null;
            }
          }
        }
      } finally {
        JniUtils.setGradMode(recording);
      }

      double[][] advantages = new double[n][];
      double[][] returns = new double[n][];
      double scoreSum = 0;
      double klSum = 0;
      long tokens = 0;
      for (int i = 0; i < n; i++) {
        RlSample sample = samples.get(i);
        scoreSum += sample.score();
        tokens += sample.responseIds().length;
        for (int t = 0; t < oldLogprobs[i].length; t++) {
          klSum += oldLogprobs[i][t] - refLogprobs[i][t];
        }
        if (ppo) {
          double[] rewards =
              Advantages.tokenRewards(
                  oldLogprobs[i], refLogprobs[i], config.klCoef(), sample.score());
          double[][] gae = Advantages.gae(rewards, oldValues[i], config.gamma(), config.lambda());
          advantages[i] = gae[0];
          returns[i] = gae[1];
        } else {
          advantages[i] = new double[sample.responseIds().length];
          java.util.Arrays.fill(advantages[i], sample.advantage());
        }
      }
      if (ppo && config.whitenAdvantages()) {
        advantages = Advantages.whiten(advantages);
      }

      double policyLoss = 0;
      double valueLoss = 0;
      double clipFraction = 0;
      double approxKl = 0;
      double grpoKl = 0;
      int steps = 0;
      for (int epoch = 0; epoch < config.epochs(); epoch++) {
        int[] order = permutation(n, config.seed(), updateIndex, epoch);
        for (int start = 0; start < n; start += config.miniBatchSize()) {
          int[] rows =
              java.util.Arrays.copyOfRange(
                  order, start, Math.min(n, start + config.miniBatchSize()));
          double[] minibatch;
          try (NDScope scope = new NDScope()) {
            SequenceBatch batch = batch(samples, rows, pad, manager);
            int p = SequenceBatch.PREDICTING;
            NDArray mask = batch.mask(p);
            float count = Math.max(1f, mask.sum().getFloat());
            NDArray oldLp = batch.grid(select(oldLogprobs, rows), p);
            NDArray advantage = batch.grid(select(advantages, rows), p);
            try (GradientCollector collector = Engine.getEngine("PyTorch").newGradientCollector()) {
              NDArray[] out =
                  policy.forwardTrainingWithHidden(batch.tokens, batch.positions, batch.attention);
              NDArray logprobs = batch.nextTokenLogprobs(out[0]);
              NDArray diff = logprobs.sub(oldLp).mul(mask);
              NDArray ratio = diff.exp();
              NDArray pg1 = advantage.neg().mul(ratio);
              NDArray pg2 =
                  advantage.neg().mul(ratio.clip(1 - config.clipRange(), 1 + config.clipRange()));
              NDArray pgLoss = GraphConstants.dividedBy(pg1.maximum(pg2).mul(mask).sum(), count);
              NDArray loss = pgLoss;
              NDArray vfLoss = null;
              NDArray k3 = null;
              if (ppo) {
                NDArray oldV = batch.grid(select(oldValues, rows), p);
                NDArray ret = batch.grid(select(returns, rows), p);
                NDArray value = valueHead.forward(batch.predicting(out[1]));
                NDArray clipped =
                    oldV.add(
                        value.sub(oldV).clip(-config.clipRangeValue(), config.clipRangeValue()));
                NDArray vf1 = value.sub(ret).square();
                NDArray vf2 = clipped.sub(ret).square();
                vfLoss =
                    GraphConstants.times(
                        GraphConstants.dividedBy(vf1.maximum(vf2).mul(mask).sum(), count), 0.5f);
                loss = loss.add(GraphConstants.times(vfLoss, (float) config.vfCoef()));
              } else {
                NDArray refLp = batch.grid(select(refLogprobs, rows), p);
                NDArray d = refLp.sub(logprobs).mul(mask);
                k3 = GraphConstants.dividedBy(d.exp().sub(d).sub(1f).mul(mask).sum(), count);
                loss = loss.add(GraphConstants.times(k3, (float) config.klCoef()));
              }
              collector.backward(loss);
              minibatch =
                  new double[] {
                    pgLoss.getFloat(),
                    vfLoss == null ? 0 : vfLoss.getFloat(),
                    pg2.gt(pg1).toType(DataType.FLOAT32, false).mul(mask).sum().getFloat() / count,
                    0.5 * diff.square().sum().getFloat() / count,
                    k3 == null ? 0 : k3.getFloat()
                  };
            }
            double norm = optimizer.step(learningRate, config.gradientClip());
            if (!Double.isFinite(minibatch[0]) || !Double.isFinite(norm)) {
              throw new IllegalStateException(
                  "rl update "
                      + updateIndex
                      + " diverged at epoch "
                      + epoch
                      + " (policy loss "
                      + minibatch[0]
                      + ", gradient norm "
                      + norm
                      + "); lower learning_rate or set gradient_clip");
            }
          }
          policyLoss += minibatch[0];
          valueLoss += minibatch[1];
          clipFraction += minibatch[2];
          approxKl += minibatch[3];
          grpoKl += minibatch[4];
          steps++;
        }
      }
      return new UpdateStats(
          updateIndex,
          scoreSum / n,
          klSum / n,
          policyLoss / steps,
          valueLoss / steps,
          clipFraction / steps,
          approxKl / steps,
          grpoKl / steps,
          tokens,
          steps,
          learningRate);
    }
  }

  /**
   * The epoch's sample order: a Fisher-Yates shuffle seeded by (seed, update, epoch) alone, so a
   * resumed run shuffles as an uninterrupted one would.
   */
  static int[] permutation(int n, long seed, int updateIndex, int epoch) {
    SplittableRandom random =
        new SplittableRandom(
            seed ^ (0x9E3779B97F4A7C15L * (1 + updateIndex)) ^ (0xC2B2AE3D27D4EB4FL * (1 + epoch)));
    int[] order = range(0, n);
    for (int i = n - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      int swap = order[i];
      order[i] = order[j];
      order[j] = swap;
    }
    return order;
  }

  private static int[] range(int from, int to) {
    int[] out = new int[to - from];
    for (int i = 0; i < out.length; i++) {
      out[i] = from + i;
    }
    return out;
  }

  private static double[][] select(double[][] all, int[] rows) {
    double[][] out = new double[rows.length][];
    for (int r = 0; r < rows.length; r++) {
      out[r] = all[rows[r]];
    }
    return out;
  }

  private static SequenceBatch batch(
      List<RlSample> samples, int[] rows, int pad, NDManager manager) {
    List<int[]> prompts = new ArrayList<>();
    List<int[]> responses = new ArrayList<>();
    for (int row : rows) {
      prompts.add(samples.get(row).promptIds());
      responses.add(samples.get(row).responseIds());
    }
    return new SequenceBatch(prompts, responses, pad, manager);
  }

  private static List<String> problems(
      DecoderLm policy,
      DecoderLm reference,
      ValueHead valueHead,
      List<RlSample> samples,
      boolean ppo,
      RlOptimizer optimizer) {
    List<String> problems = new ArrayList<>();
    LmConfig model = policy.config();
    if (reference.config().vocabSize() != model.vocabSize()) {
      problems.add(
          "reference: vocab_size "
              + reference.config().vocabSize()
              + ", expected the policy's "
              + model.vocabSize());
    }
    if (ppo && valueHead == null) {
      problems.add("valueHead: null, expected a value head for ppo");
    }
    if (ppo && valueHead != null && valueHead.dModel() != model.dModel()) {
      problems.add(
          "valueHead: d_model " + valueHead.dModel() + ", expected the policy's " + model.dModel());
    }
    if (optimizer == null
        || !optimizer.parameters().keySet().containsAll(policy.parameters().keySet())
        || (ppo
            && valueHead != null
            && !optimizer.parameters().keySet().containsAll(valueHead.parameters().keySet()))) {
      problems.add(
          "optimizer: expected one over the policy's"
              + (ppo ? " and the value head's" : "")
              + " parameters (RlOptimizer.parametersOf)");
    }
    if (samples == null || samples.isEmpty()) {
      problems.add("samples: empty, expected at least one");
      return problems;
    }
    for (RlSample sample : samples) {
      if (problems.size() >= 5) {
        break;
      }
      String name = "sample " + sample.id();
      if (sample.promptIds() == null || sample.promptIds().length == 0) {
        problems.add(name + ": empty prompt, expected at least one token");
        continue;
      }
      if (sample.responseIds() == null || sample.responseIds().length == 0) {
        problems.add(name + ": empty response, expected at least one token");
        continue;
      }
      if (sample.length() > model.contextLength()) {
        problems.add(
            name
                + ": prompt "
                + sample.promptIds().length
                + " + response "
                + sample.responseIds().length
                + " = "
                + sample.length()
                + " tokens, expected at most context_length "
                + model.contextLength());
      }
      if (!inVocabulary(sample.promptIds(), model) || !inVocabulary(sample.responseIds(), model)) {
        problems.add(name + ": a token id outside 0.." + (model.vocabSize() - 1));
      }
      if (!Double.isFinite(sample.score())) {
        problems.add(name + ": score " + sample.score() + ", expected a finite number");
      }
      if (!ppo && !Double.isFinite(sample.advantage())) {
        problems.add(
            name + ": advantage " + sample.advantage() + ", expected a finite number for grpo");
      }
    }
    return problems;
  }

  private static boolean inVocabulary(int[] ids, LmConfig model) {
    for (int id : ids) {
      if (id < 0 || id >= model.vocabSize()) {
        return false;
      }
    }
    return true;
  }
}
