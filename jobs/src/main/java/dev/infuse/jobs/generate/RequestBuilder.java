package dev.infuse.jobs.generate;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.infuse.jobs.config.InfuseConfig;
import dev.infuse.jobs.llm.LlmConfig;
import dev.infuse.udfs.common.Keys;
import dev.infuse.udfs.llm.ChatMessage;
import dev.infuse.udfs.llm.ChatRequest;
import dev.infuse.udfs.llm.GenerationParams;
import dev.infuse.udfs.llm.LlmSettings;
import dev.infuse.udfs.llm.RequestKeys;
import dev.infuse.udfs.prompt.PromptTemplate;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns a template and its variables into a keyed chat request, on an executor. Serializable and
 * small: it carries the template as JSON and the generation settings, and parses the template once
 * per JVM use.
 */
public final class RequestBuilder implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String backend;
  private final String model;
  private final int maxTokens;
  private final double temperature;
  private final double topP;
  private final long runSeed;
  private final String templateJson;
  private transient PromptTemplate template;

  /** Requests to the {@code llm} section's model with its decoding settings. */
  public RequestBuilder(InfuseConfig config, PromptTemplate template) {
    this(
        config.section(LlmConfig.class).client(),
        config.section(LlmConfig.class).maxTokens(),
        config.section(LlmConfig.class).temperature(),
        config.section(LlmConfig.class).topP(),
        config.run().seed(),
        template);
  }

  /**
   * Requests to another client, or with other decoding, than the {@code llm} section's: a judge
   * asks its own model, greedily.
   */
  public RequestBuilder(
      LlmSettings client,
      int maxTokens,
      double temperature,
      double topP,
      long runSeed,
      PromptTemplate template) {
    this.backend = client.backend().id();
    this.model = client.model();
    this.maxTokens = maxTokens;
    this.temperature = temperature;
    this.topP = topP;
    this.runSeed = runSeed;
    this.templateJson = PromptLibrary.toJson(template);
  }

  /** A built request and the fields every output row records. */
  public record Built(String callKey, String chatRequestJson, String canonicalRequest, long seed) {}

  public PromptTemplate template() {
    if (template == null) {
      template = PromptLibrary.fromJson(templateJson);
    }
    return template;
  }

  /** {@code backend:model}, recorded as each output row's generator. */
  public String generator() {
    return backend + ":" + model;
  }

  /**
   * The request for one unit. The seed derives from (run seed, unit id, template), so reruns ask
   * the same question and hit the cache, while a new run seed samples anew.
   */
  public Built build(String unitId, String task, Map<String, String> vars) {
    PromptTemplate template = template();
    long seed = seedFor(runSeed, unitId, template.id() + "@" + template.version());
    List<ChatMessage> messages =
        template.render(vars).stream().map(m -> new ChatMessage(m.role(), m.content())).toList();
    Map<String, String> taskInputs = new LinkedHashMap<>(vars);
    taskInputs.put("task", task);
    ChatRequest request =
        new ChatRequest(
            model,
            messages,
            new GenerationParams(maxTokens, temperature, topP, 1, List.of(), seed, false, null),
            taskInputs);
    try {
      return new Built(
          RequestKeys.key(backend, request),
          JSON.writeValueAsString(request),
          RequestKeys.canonicalJson(backend, request),
          seed);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A non-negative seed from the first 15 hex digits of sha256(run seed, parts…). */
  public static long seedFor(long runSeed, String... parts) {
    String[] all = new String[parts.length + 1];
    all[0] = Long.toString(runSeed);
    System.arraycopy(parts, 0, all, 1, parts.length);
    return Long.parseLong(Keys.sha256Hex(all).substring(0, 15), 16);
  }
}
