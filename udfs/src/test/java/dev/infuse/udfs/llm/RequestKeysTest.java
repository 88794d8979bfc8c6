package dev.infuse.udfs.llm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RequestKeysTest {
  private static final GenerationParams PARAMS =
      new GenerationParams(64, 0.7, 1.0, 1, List.of("END"), 7L, false, null);

  @Test
  void theKeyIsSha256HexAndStable() {
    String key = RequestKeys.key("openai", request(PARAMS));

    assertThat(key).matches("[0-9a-f]{64}");
    assertThat(
            RequestKeys.key(
                "openai",
                request(new GenerationParams(64, 0.70, 1.0, 1, List.of("END"), 7L, false, null))))
        .isEqualTo(key);
  }

  @Test
  void theCanonicalJsonHasSortedKeysNoWhitespaceAndPlainNumbers() {
    String json = RequestKeys.canonicalJson("openai", request(PARAMS));

    assertThat(json)
        .isEqualTo(
            "{\"backend\":\"openai\",\"messages\":[{\"content\":\"be brief\",\"role\":\"system\"},"
                + "{\"content\":\"say \\\"hi\\\"\\n\",\"role\":\"user\"}],\"model\":\"m\",\"params\":{\"jsonMode\":false,"
                + "\"jsonSchema\":null,\"maxTokens\":64,\"n\":1,\"seed\":7,\"stop\":[\"END\"],\"temperature\":0.7,\"topP\":1}}");
  }

  @Test
  void everyPartOfTheRequestChangesTheKey() {
    ChatRequest base = request(PARAMS);
    List<String> keys = new ArrayList<>();
    keys.add(RequestKeys.key("openai", base));
    keys.add(RequestKeys.key("extractive", base));
    keys.add(RequestKeys.key("openai", new ChatRequest("m2", base.messages(), PARAMS, Map.of())));
    keys.add(
        RequestKeys.key(
            "openai",
            new ChatRequest(
                "m", List.of(base.messages().get(1), base.messages().get(0)), PARAMS, Map.of())));
    keys.add(
        RequestKeys.key(
            "openai",
            new ChatRequest(
                "m",
                List.of(base.messages().get(0), new ChatMessage("assistant", "say \"hi\"\n")),
                PARAMS,
                Map.of())));
    keys.add(
        RequestKeys.key(
            "openai",
            new ChatRequest(
                "m",
                List.of(base.messages().get(0), new ChatMessage("user", "say \"hi\"")),
                PARAMS,
                Map.of())));
    for (GenerationParams params :
        List.of(
            new GenerationParams(65, 0.7, 1.0, 1, List.of("END"), 7L, false, null),
            new GenerationParams(64, 0.71, 1.0, 1, List.of("END"), 7L, false, null),
            new GenerationParams(64, 0.7, 0.9, 1, List.of("END"), 7L, false, null),
            new GenerationParams(64, 0.7, 1.0, 2, List.of("END"), 7L, false, null),
            new GenerationParams(64, 0.7, 1.0, 1, List.of(), 7L, false, null),
            new GenerationParams(64, 0.7, 1.0, 1, List.of("END", "STOP"), 7L, false, null),
            new GenerationParams(64, 0.7, 1.0, 1, List.of("END"), 8L, false, null),
            new GenerationParams(64, 0.7, 1.0, 1, List.of("END"), null, false, null),
            new GenerationParams(64, 0.7, 1.0, 1, List.of("END"), 7L, true, null),
            new GenerationParams(
                64, 0.7, 1.0, 1, List.of("END"), 7L, false, "{\"type\":\"object\"}"))) {
      keys.add(RequestKeys.key("openai", request(params)));
    }

    Set<String> distinct = new HashSet<>(keys);
    assertThat(distinct).hasSize(keys.size());
  }

  @Test
  void theTaskIsNotPartOfTheKey() {
    ChatRequest withTask =
        new ChatRequest(
            "m", request(PARAMS).messages(), PARAMS, Map.of("task", "qa", "question", "q"));

    assertThat(RequestKeys.key("openai", withTask))
        .isEqualTo(RequestKeys.key("openai", request(PARAMS)));
  }

  @Test
  void aSchemaIsKeyedByItsContentNotItsSpelling() {
    GenerationParams spaced =
        new GenerationParams(
            64,
            0.7,
            1.0,
            1,
            List.of(),
            null,
            false,
            "{ \"type\": \"object\", \"required\": [\"a\"], \"maxProperties\": 2.0 }");
    GenerationParams compact =
        new GenerationParams(
            64,
            0.7,
            1.0,
            1,
            List.of(),
            null,
            false,
            "{\"maxProperties\":2,\"required\":[\"a\"],\"type\":\"object\"}");

    assertThat(RequestKeys.key("openai", request(spaced)))
        .isEqualTo(RequestKeys.key("openai", request(compact)));
    assertThat(RequestKeys.canonicalJson("openai", request(compact)))
        .contains("\"jsonSchema\":{\"maxProperties\":2,\"required\":[\"a\"],\"type\":\"object\"}");
  }

  @Test
  void anInvalidSchemaOrANonFiniteNumberIsRejected() {
    GenerationParams badSchema =
        new GenerationParams(64, 0.7, 1.0, 1, List.of(), null, false, "{\"type\":");
    GenerationParams nan =
        new GenerationParams(64, Double.NaN, 1.0, 1, List.of(), null, false, null);

    assertThatThrownBy(() -> RequestKeys.key("openai", request(badSchema)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("jsonSchema");
    assertThatThrownBy(() -> RequestKeys.key("openai", request(nan)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void theCanonicalJsonHoldsNoApiKey() {
    String key = "sk-never-in-the-request";
    OpenAiClient client =
        new OpenAiClient(
            new LlmSettings(
                LlmBackend.OPENAI, "http://127.0.0.1:9/v1", "m", "KEY_VAR", 1, 1, 1, 1, 1, 1),
            name -> key);
    try {
      assertThat(RequestKeys.canonicalJson(client.backend(), request(PARAMS)))
          .doesNotContain(key)
          .doesNotContain("KEY_VAR");
    } finally {
      client.close();
    }
  }

  private static ChatRequest request(GenerationParams params) {
    return new ChatRequest(
        "m",
        List.of(new ChatMessage("system", "be brief"), new ChatMessage("user", "say \"hi\"\n")),
        params,
        Map.of());
  }
}
