package dev.infuse.udfs.lm.rl;

/**
 * What one {@link PolicyUpdater#update} did, named as TRL's PPOv2 logs them.
 *
 * @param updateIndex the 0-based global update this was
 * @param meanScore the samples' mean score ({@code objective/scores})
 * @param meanKl per sample, the sum over response tokens of {@code logπ_old − logπ_ref}, averaged
 *     over samples ({@code objective/kl})
 * @param policyLoss the clipped policy loss, averaged over minibatch steps ({@code
 *     loss/policy_avg})
 * @param valueLoss the clipped value loss, averaged likewise; 0 for GRPO ({@code loss/value_avg})
 * @param clipFraction the share of response tokens whose ratio was clipped ({@code
 *     policy/clipfrac_avg})
 * @param approxKl {@code 0.5·mean((logπ − logπ_old)²)} over response tokens ({@code
 *     policy/approxkl_avg})
 * @param grpoKl GRPO only: the k3 KL estimate to the reference, averaged likewise; 0 for PPO
 * @param tokens response tokens in the batch
 * @param minibatchSteps optimizer steps taken
 * @param learningRate the rate this update used
 */
public record UpdateStats(
    int updateIndex,
    double meanScore,
    double meanKl,
    double policyLoss,
    double valueLoss,
    double clipFraction,
    double approxKl,
    double grpoKl,
    long tokens,
    int minibatchSteps,
    double learningRate) {}
