package dev.infuse.jobs.score;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.infuse.jobs.config.InfuseConfig;
import dev.infuse.jobs.generate.PromptLibrary;
import dev.infuse.jobs.generate.RequestBuilder;
import dev.infuse.jobs.llm.LlmConfig;
import dev.infuse.udfs.llm.ChatMessage;
import dev.infuse.udfs.llm.ChatRequest;
import dev.infuse.udfs.llm.GenerationParams;
import dev.infuse.udfs.llm.RequestKeys;
import dev.infuse.udfs.prompt.PromptTemplate;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The judge's keyed chat requests, built on executors. Unlike generation, the judge samples
 * greedily (temperature 0, top_p 1) with a seed from the question and the rubric version only: the
 * same answer to the same question is the same request, so it is judged once and then read from
 * {@code llm_calls}, whatever the run seed, bootstrap seed or generation temperature of the run.
 */
final class JudgeRequests implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String backend;
  private final String model;
  private final int maxTokens;
  private final String templateJson;
  private transient PromptTemplate template;

  JudgeRequests(InfuseConfig config, PromptTemplate template) {
    LlmConfig llm = config.section(LlmConfig.class);
    this.backend = llm.client().backend().id();
    this.model = llm.client().model();
    this.maxTokens = config.section(ScoreConfig.class).judgeMaxTokens();
    this.templateJson = PromptLibrary.toJson(template);
  }

  /** {@code financebench-judge@1}: what scores record among their prompt versions. */
  String promptVersion() {
    return template().id() + "@" + template().version();
  }

  private PromptTemplate template() {
    if (template == null) {
      template = PromptLibrary.fromJson(templateJson);
    }
    return template;
  }

  /**
   * @return call key, chat request JSON, canonical request JSON
   */
  String[] build(String questionId, String question, String gold, String answer) {
    Map<String, String> vars = new LinkedHashMap<>();
    vars.put("question", question);
    vars.put("gold", gold);
    vars.put("answer", answer);
    List<ChatMessage> messages =
        template().render(vars).stream().map(m -> new ChatMessage(m.role(), m.content())).toList();
    Map<String, String> task = new LinkedHashMap<>(vars);
    task.put("task", template().id());
    long seed = RequestBuilder.seedFor(0, questionId, promptVersion());
    ChatRequest request =
        new ChatRequest(
            model,
            messages,
            new GenerationParams(maxTokens, 0.0, 1.0, 1, List.of(), seed, false, null),
            task);
    try {
      return new String[] {
        RequestKeys.key(backend, request),
        JSON.writeValueAsString(request),
        RequestKeys.canonicalJson(backend, request)
      };
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
