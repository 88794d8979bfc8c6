package dev.infuse.jobs.maporl;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.infuse.jobs.config.ConfigJson;
import dev.infuse.jobs.config.ConfigSection;
import dev.infuse.udfs.common.EnumNames;
import dev.infuse.udfs.common.Keys;
import dev.infuse.udfs.maporl.Horizon;
import dev.infuse.udfs.maporl.IncentiveConvention;
import dev.infuse.udfs.maporl.RewardSettings;
import dev.infuse.udfs.maporl.Share;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The {@code reward} section: how {@code reward} (and {@code maporl}) turn verifier scores into
 * rewards. See defaults.yaml and docs/MAPORL.md for each key.
 *
 * @param horizon discounted_sum, last or current (the reference's rule_horizon)
 * @param share all or individual (rule_agent_share)
 * @param gamma the discount of discounted_sum (rule_discount)
 * @param incentives add the corrective and persuasive bonus
 * @param alpha [α0, α1], the bonus for the agent's own change from t-1 to t
 * @param beta [β0, β1], the bonus for the agent's effect on the others from t to t+1
 * @param incentiveConvention paper (the paper's signs) or reference-code (the code's)
 * @param advantage group: rewards normalised per question; gae: per-token advantages with a value
 *     head in the PPO update, none stored here
 * @param discussion the rollouts.discussion_id to reward; null for those of the latest discuss run
 * @param input a JSONL file of (episode_id, agent_id, turn, score[, correct]) instead of rollouts
 * @param output with {@code input}: the JSONL file written, each line with reward, base and bonus
 */
public record RewardConfig(
    String horizon,
    String share,
    double gamma,
    boolean incentives,
    List<Double> alpha,
    List<Double> beta,
    String incentiveConvention,
    Advantage advantage,
    String discussion,
    String input,
    String output)
    implements ConfigSection {

  /** How advantages are formed from rewards. */
  public enum Advantage {
    /** GRPO-style: (reward - mean) / std over the responses to one question. */
    GROUP,
    /** PPO: generalised advantage estimation with a value head, inside the update. */
    GAE;

    @JsonValue
    public String id() {
      return EnumNames.id(this);
    }

    @Override
    public String toString() {
      return id();
    }

    @JsonCreator
    public static Advantage fromName(String name) {
      return EnumNames.parse(Advantage.class, name);
    }
  }

  /** The settings as the udfs reward rules take them; call only when {@link #problems} is empty. */
  public RewardSettings settings() {
    return new RewardSettings(
        Horizon.fromName(horizon),
        Share.fromName(share),
        gamma,
        alpha.get(0),
        alpha.get(1),
        beta.get(0),
        beta.get(1),
        IncentiveConvention.fromName(incentiveConvention),
        incentives);
  }

  /** The settings as canonical JSON: hashed, the scope of their rows in {@code rewards}. */
  public String settingsJson() {
    Map<String, Object> settings = new LinkedHashMap<>();
    settings.put("horizon", horizon);
    settings.put("share", share);
    settings.put("gamma", gamma);
    settings.put("incentives", incentives);
    settings.put("alpha", alpha);
    settings.put("beta", beta);
    settings.put("incentive_convention", incentiveConvention);
    settings.put("advantage", advantage.id());
    return ConfigJson.canonical(new ObjectMapper().valueToTree(settings));
  }

  /** {@code rewards.reward_settings_id} of these settings. */
  public String settingsId() {
    return Keys.shortHash(settingsJson());
  }

  @Override
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    name(problems, "horizon", horizon, Horizon::fromName);
    name(problems, "share", share, Share::fromName);
    name(problems, "incentive_convention", incentiveConvention, IncentiveConvention::fromName);
    if (alpha == null || alpha.size() != 2) {
      problems.add("alpha: got " + alpha + ", expected two weights [alpha0, alpha1]");
    }
    if (beta == null || beta.size() != 2) {
      problems.add("beta: got " + beta + ", expected two weights [beta0, beta1]");
    }
    if (problems.isEmpty()) {
      for (String problem : settings().problems()) {
        problems.add(
            problem
                .replace("alpha0:", "alpha[0]:")
                .replace("alpha1:", "alpha[1]:")
                .replace("beta0:", "beta[0]:")
                .replace("beta1:", "beta[1]:")
                .replace("convention:", "incentive_convention:"));
      }
    }
    if ((input == null) != (output == null)) {
      problems.add(
          "output: got "
              + output
              + " with input "
              + input
              + ", expected both (score a JSONL file into another) or neither (rollouts)");
    }
    return problems;
  }

  private static void name(
      List<String> problems, String key, String value, Function<String, ?> parse) {
    try {
      parse.apply(value);
    } catch (IllegalArgumentException e) {
      problems.add(key + ": " + e.getMessage());
    }
  }
}
