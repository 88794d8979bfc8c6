package dev.infuse.jobs.maporl;

import dev.infuse.jobs.generate.PromptLibrary;
import dev.infuse.jobs.generate.RequestBuilder;
import dev.infuse.udfs.common.Keys;
import dev.infuse.udfs.llm.LlmSettings;
import dev.infuse.udfs.maporl.DiscussionPrompts;
import dev.infuse.udfs.prompt.PromptTemplate;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * What every executor needs to play a turn, small and serializable: the agents' clients and
 * generation parameters, the prompt templates as JSON, and the discussion's switches. The {@code
 * discussionId} hashes all of it (minus secrets, which it never holds), so two discussions share
 * episodes, and cached calls, exactly when they would ask the same things.
 */
public record DiscussionSetup(
    List<String> agentIds,
    List<LlmSettings> clients,
    List<Double> temperatures,
    List<Integer> maxTokens,
    List<Double> topPs,
    String firstTemplateJson,
    String discussTemplateJson,
    String judgeTemplateJson,
    boolean feedback,
    DiscussConfig.Verifier verifier,
    String verifierModel,
    int judgeMaxTokens,
    boolean consensusStop,
    boolean penalty,
    int turns,
    long runSeed,
    Integer iteration)
    implements Serializable {

  static DiscussionSetup of(
      DiscussConfig discuss,
      List<LlmSettings> clients,
      PromptTemplate first,
      PromptTemplate discussTemplate,
      PromptTemplate judge,
      long runSeed) {
    List<String> ids = new ArrayList<>();
    List<Double> temperatures = new ArrayList<>();
    List<Integer> maxTokens = new ArrayList<>();
    List<Double> topPs = new ArrayList<>();
    for (DiscussConfig.Agent agent : discuss.agents()) {
      ids.add(agent.id());
      temperatures.add(agent.temperatureOr());
      maxTokens.add(agent.maxTokensOr());
      topPs.add(agent.topPOr());
    }
    return new DiscussionSetup(
        List.copyOf(ids),
        List.copyOf(clients),
        List.copyOf(temperatures),
        List.copyOf(maxTokens),
        List.copyOf(topPs),
        PromptLibrary.toJson(first),
        PromptLibrary.toJson(discussTemplate),
        judge == null ? null : PromptLibrary.toJson(judge),
        discuss.feedback(),
        discuss.verifier(),
        discuss.verifierModel(),
        discuss.judgeMaxTokens(),
        discuss.consensusStop(),
        discuss.penalty(),
        discuss.turns(),
        runSeed,
        discuss.iteration());
  }

  int agents() {
    return agentIds.size();
  }

  /** {@code backend:model} of agent i, as rollouts.model records it. */
  String model(int agent) {
    LlmSettings client = clients.get(agent);
    return client.backend().id() + ":" + client.model();
  }

  DiscussionPrompts prompts() {
    return new DiscussionPrompts(
        PromptLibrary.fromJson(firstTemplateJson),
        PromptLibrary.fromJson(discussTemplateJson),
        feedback);
  }

  String templateVersions() {
    String versions = prompts().templateVersions();
    if (judgeTemplateJson != null) {
      PromptTemplate judge = PromptLibrary.fromJson(judgeTemplateJson);
      versions += "," + judge.id() + "@" + judge.version();
    }
    return versions;
  }

  /**
   * Hash of everything that changes what the agents are asked or how they are scored: the agents'
   * backends, endpoints, models and sampling, the templates, turns, switches and the run seed.
   */
  String discussionId() {
    List<String> parts = new ArrayList<>();
    for (int i = 0; i < agents(); i++) {
      LlmSettings client = clients.get(i);
      parts.add(agentIds.get(i));
      parts.add(client.backend().id());
      parts.add(String.valueOf(client.baseUrl()));
      parts.add(client.model());
      parts.add(Double.toString(temperatures.get(i)));
      parts.add(Integer.toString(maxTokens.get(i)));
      parts.add(Double.toString(topPs.get(i)));
    }
    parts.add(templateVersions());
    parts.add(Integer.toString(turns));
    parts.add(Boolean.toString(feedback));
    parts.add(verifier.id());
    parts.add(String.valueOf(verifierModel));
    parts.add(Boolean.toString(consensusStop));
    parts.add(Boolean.toString(penalty));
    parts.add(Long.toString(runSeed));
    parts.add(String.valueOf(iteration));
    return Keys.shortHash(parts.toArray(String[]::new));
  }

  /** The seed of agent i's call at turn t of an episode; a new run.seed samples anew. */
  long seed(String episodeId, int agent, int turn) {
    return RequestBuilder.seedFor(
        runSeed, episodeId, agentIds.get(agent), "turn-" + turn, templateVersions());
  }
}
