package dev.infuse.udfs.llm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LlmClientsTest {
  @AfterEach
  void closeClients() {
    LlmClients.closeAll();
  }

  @Test
  void eachBackendBuildsItsClient() {
    assertThat(LlmClients.forSettings(settings(LlmBackend.OPENAI, 4)))
        .isInstanceOf(OpenAiClient.class);
    assertThat(LlmClients.forSettings(settings(LlmBackend.EXTRACTIVE, 4)))
        .isInstanceOf(ExtractiveClient.class);
    for (LlmBackend backend : LlmBackend.values()) {
      assertThat(LlmBackend.fromName(backend.id())).isEqualTo(backend);
    }
  }

  @Test
  void equalSettingsShareOneClient() {
    LlmClient first = LlmClients.forSettings(settings(LlmBackend.OPENAI, 4));
    LlmClient again = LlmClients.forSettings(settings(LlmBackend.OPENAI, 4));
    LlmClient other = LlmClients.forSettings(settings(LlmBackend.OPENAI, 8));

    assertThat(again).isSameAs(first);
    assertThat(other).isNotSameAs(first);
  }

  @Test
  void anUnknownBackendSuggestsTheNearestName() {
    assertThatThrownBy(() -> LlmBackend.fromName("opnai"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("got opnai, expected extractive, openai or djl; did you mean openai?");
  }

  @Test
  void aFactoryThatFailsCachesNothing() {
    LlmSettings missingKey =
        new LlmSettings(
            LlmBackend.OPENAI,
            "http://127.0.0.1:9/v1",
            "m",
            "INFUSE_SURELY_UNSET_VARIABLE_42",
            1,
            1,
            1,
            1,
            1,
            1);

    assertThatThrownBy(() -> LlmClients.forSettings(missingKey))
        .hasMessageContaining("INFUSE_SURELY_UNSET_VARIABLE_42");
    assertThatThrownBy(() -> LlmClients.forSettings(missingKey))
        .hasMessageContaining("INFUSE_SURELY_UNSET_VARIABLE_42");
  }

  private static LlmSettings settings(LlmBackend backend, int maxConcurrency) {
    return new LlmSettings(
        backend, "http://127.0.0.1:9/v1", "m", null, maxConcurrency, 5, 10, 3, 10, 100);
  }
}
