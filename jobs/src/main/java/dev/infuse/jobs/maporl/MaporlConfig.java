package dev.infuse.jobs.maporl;

import dev.infuse.jobs.config.ConfigSection;
import dev.infuse.udfs.lm.rl.PolicyUpdateConfig;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;

/**
 * The {@code maporl} section: co-training of the discussion's agents, each its own DJL policy. See
 * defaults.yaml and docs/MAPORL.md for each key.
 *
 * @param iterations rounds of discuss, reward and update
 * @param policies per agent of {@code discuss.agents}, in order: the starting model directory
 *     ({@code train} writes one), also the frozen reference of its KL penalty
 * @param trainAgents the agents whose policy is updated; empty for all (co-training). One agent is
 *     the paper's single-agent comparison: the others keep their starting policy
 * @param output where each agent's checkpoints go, {@code <output>/<agent_id>/}; relative to the
 *     warehouse when relative
 * @param export rollouts with rewards and advantages, written at the end: a path ending in {@code
 *     .parquet} for Parquet, any other for JSONL; null for none
 */
public record MaporlConfig(
    int iterations,
    List<String> policies,
    List<String> trainAgents,
    String output,
    String algorithm,
    double klCoef,
    double gamma,
    double gaeLambda,
    double clipRange,
    double clipRangeValue,
    double vfCoef,
    int epochs,
    int miniBatchSize,
    double learningRate,
    boolean whitenAdvantages,
    double gradientClip,
    String export)
    implements ConfigSection {

  /** The update settings, over {@code totalUpdates} updates of each agent's learning-rate decay. */
  public PolicyUpdateConfig update(long seed) {
    return new PolicyUpdateConfig(
        algorithm,
        klCoef,
        gamma,
        gaeLambda,
        clipRange,
        clipRangeValue,
        vfCoef,
        epochs,
        miniBatchSize,
        learningRate,
        Math.max(1, iterations),
        whitenAdvantages,
        gradientClip,
        seed);
  }

  @Override
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    if (iterations < 1) {
      problems.add("iterations: got " + iterations + ", expected >= 1");
    }
    for (String policy : policies) {
      if (policy == null || policy.isBlank()) {
        problems.add(
            "policies: got an empty entry in " + policies + ", expected model directories");
      }
    }
    if (new HashSet<>(trainAgents).size() != trainAgents.size()) {
      problems.add("train_agents: got " + trainAgents + ", expected each agent once");
    }
    if (output == null || output.isBlank()) {
      problems.add("output: got nothing, expected a directory for the checkpoints");
    }
    for (String problem : update(0).problems()) {
      problems.add(
          problem
              .replace("lambda:", "gae_lambda:")
              .replace("totalUpdates:", "iterations:")
              .replace("klCoef", "kl_coef")
              .replace("clipRangeValue", "clip_range_value")
              .replace("clipRange", "clip_range")
              .replace("vfCoef", "vf_coef")
              .replace("miniBatchSize", "mini_batch_size")
              .replace("learningRate", "learning_rate")
              .replace("gradientClip", "gradient_clip"));
    }
    return problems;
  }
}
