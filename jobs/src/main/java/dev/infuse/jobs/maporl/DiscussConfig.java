package dev.infuse.jobs.maporl;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.infuse.jobs.config.ConfigSection;
import dev.infuse.jobs.llm.LlmConfig;
import dev.infuse.udfs.common.EnumNames;
import dev.infuse.udfs.llm.LlmBackend;
import dev.infuse.udfs.llm.LlmSettings;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The {@code discuss} section: a MAPoRL discussion of A agents over T turns on one benchmark's
 * questions. See defaults.yaml for each key.
 *
 * @param benchmark questions.benchmark (gsm8k, anli, or any benchmark with options)
 * @param split questions.split; null for every split
 * @param maxQuestions the first N questions by question_id; 0 for all
 * @param agents the agents, each with its own backend, model and generation parameters; a null
 *     field takes the {@code llm} section's value
 * @param turns turns per discussion, the first (independent) answer included
 * @param feedback show each agent its own and the others' verifier scores from turn 1
 * @param verifier how each answer is scored
 * @param verifierModel for {@code model}: the verifier directory {@code train-verifier} wrote
 * @param judgeMaxTokens for {@code llm_judge}: the judge's completion budget
 * @param consensusStop end a discussion at the first turn whose answers all agree (and are valid)
 * @param penalty the reference's non-EOS penalty: a score of -10 for a short, repetitive or (after
 *     turn 0) unboxed response
 * @param iteration set by {@code maporl} on the rollouts of each co-training iteration; null
 *     otherwise
 */
public record DiscussConfig(
    String benchmark,
    String split,
    int maxQuestions,
    List<Agent> agents,
    int turns,
    boolean feedback,
    Verifier verifier,
    String verifierModel,
    int judgeMaxTokens,
    boolean consensusStop,
    boolean penalty,
    Integer iteration)
    implements ConfigSection {

  /**
   * One agent. Null fields inherit from the {@code llm} section (backend, base_url, model,
   * api_key_env) or take the MAPoRL defaults (temperature 0.7, 300 new tokens, top_p 1).
   */
  public record Agent(
      String id,
      LlmBackend backend,
      String baseUrl,
      String model,
      String apiKeyEnv,
      Double temperature,
      Integer maxTokens,
      Double topP) {

    /** This agent's client: the {@code llm} section's with this agent's endpoint and model. */
    public LlmSettings client(LlmConfig llm) {
      LlmSettings base = llm.client();
      return new LlmSettings(
          backend == null ? base.backend() : backend,
          baseUrl == null ? base.baseUrl() : baseUrl,
          model == null ? base.model() : model,
          apiKeyEnv == null ? base.apiKeyEnv() : apiKeyEnv,
          base.maxConcurrency(),
          base.requestTimeoutSeconds(),
          base.rowTimeoutSeconds(),
          base.maxAttempts(),
          base.initialBackoffMillis(),
          base.maxBackoffMillis(),
          base.device());
    }

    public double temperatureOr() {
      return temperature == null ? 0.7 : temperature;
    }

    public int maxTokensOr() {
      return maxTokens == null ? 300 : maxTokens;
    }

    public double topPOr() {
      return topP == null ? 1.0 : topP;
    }
  }

  /** How an answer is scored (docs/MAPORL.md, Verifiers). */
  public enum Verifier {
    /** Ground-truth correctness as 0/1: the reference with reward_feedback off. */
    EXACT,
    /** P(correct) from a DJL scalar-head model that sees the question and the response. */
    MODEL,
    /** An LLM through the client layer, with the versioned rubric maporl-judge. */
    LLM_JUDGE;

    @JsonValue
    public String id() {
      return EnumNames.id(this);
    }

    @Override
    public String toString() {
      return id();
    }

    @JsonCreator
    public static Verifier fromName(String name) {
      return EnumNames.parse(Verifier.class, name);
    }
  }

  @Override
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    if (benchmark == null || benchmark.isBlank()) {
      problems.add("benchmark: got nothing, expected a questions.benchmark such as gsm8k or anli");
    }
    if (maxQuestions < 0) {
      problems.add("max_questions: got " + maxQuestions + ", expected >= 0 (0 for all)");
    }
    if (agents == null || agents.size() < 2) {
      problems.add(
          "agents: got "
              + (agents == null ? 0 : agents.size())
              + " agent(s), expected at least 2 (a discussion needs others)");
    } else {
      Set<String> ids = new HashSet<>();
      for (int i = 0; i < agents.size(); i++) {
        Agent agent = agents.get(i);
        if (agent == null || agent.id() == null || agent.id().isBlank()) {
          problems.add("agents[" + i + "].id: got nothing, expected a name such as agent-" + i);
          continue;
        }
        if (!agent.id().matches("[A-Za-z0-9_.-]+")) {
          problems.add(
              "agents[" + i + "].id: got " + agent.id() + ", expected letters, digits, _ . -");
        }
        if (!ids.add(agent.id())) {
          problems.add("agents[" + i + "].id: got " + agent.id() + " twice, expected unique ids");
        }
        if (agent.temperature() != null && !(agent.temperature() >= 0)) {
          problems.add(
              "agents[" + i + "].temperature: got " + agent.temperature() + ", expected >= 0");
        }
        if (agent.maxTokens() != null && agent.maxTokens() < 1) {
          problems.add(
              "agents[" + i + "].max_tokens: got " + agent.maxTokens() + ", expected >= 1");
        }
        if (agent.topP() != null && !(agent.topP() > 0 && agent.topP() <= 1)) {
          problems.add(
              "agents[" + i + "].top_p: got " + agent.topP() + ", expected 0 < top_p <= 1");
        }
      }
    }
    if (turns < 1) {
      problems.add("turns: got " + turns + ", expected >= 1 (turn 0 is the first answer)");
    }
    if (verifier == Verifier.MODEL && (verifierModel == null || verifierModel.isBlank())) {
      problems.add(
          "verifier_model: got nothing with verifier model, expected the directory"
              + " train-verifier wrote");
    }
    if (judgeMaxTokens < 1) {
      problems.add("judge_max_tokens: got " + judgeMaxTokens + ", expected >= 1");
    }
    return problems;
  }
}
