package dev.infuse.udfs.llm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LlmClientsTest {
  @AfterEach
  void closeClients() {
    LlmClients.closeAll();
  }

  @Test
  void openaiIsRegistered() {
    assertThat(LlmClients.backends()).contains("openai");
    assertThat(LlmClients.forSettings(settings("openai", 4))).isInstanceOf(OpenAiClient.class);
  }

  @Test
  void equalSettingsShareOneClient() {
    LlmClient first = LlmClients.forSettings(settings("openai", 4));
    LlmClient again = LlmClients.forSettings(settings("openai", 4));
    LlmClient other = LlmClients.forSettings(settings("openai", 8));

    assertThat(again).isSameAs(first);
    assertThat(other).isNotSameAs(first);
  }

  @Test
  void anUnknownBackendSuggestsTheNearestName() {
    assertThatThrownBy(() -> LlmClients.forSettings(settings("opnai", 4)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown backend 'opnai'")
        .hasMessageContaining("did you mean 'openai'");
  }

  @Test
  void registersABackendByClassNameOnlyWhenTheClassIsPresent() {
    assertThat(LlmClients.registerByClassName("stub-by-class", StubClient.class.getName()))
        .isTrue();
    assertThat(LlmClients.registerByClassName("absent", "dev.infuse.udfs.llm.NoSuchClient"))
        .isFalse();

    assertThat(LlmClients.backends()).contains("stub-by-class").doesNotContain("absent");
    LlmClient client = LlmClients.forSettings(settings("stub-by-class", 1));
    assertThat(client).isInstanceOf(StubClient.class);
    assertThat(((StubClient) client).settings.backend()).isEqualTo("stub-by-class");
  }

  @Test
  void registeringANameTwiceFails() {
    LlmClients.register("stub-twice", StubClient::new);

    assertThatThrownBy(() -> LlmClients.register("stub-twice", StubClient::new))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("registered twice");
  }

  @Test
  void aFactoryThatFailsCachesNothing() {
    LlmSettings missingKey =
        new LlmSettings(
            "openai",
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

  private static LlmSettings settings(String backend, int maxConcurrency) {
    return new LlmSettings(
        backend, "http://127.0.0.1:9/v1", "m", null, maxConcurrency, 5, 10, 3, 10, 100);
  }

  /** A backend for registration tests. */
  public static final class StubClient implements LlmClient {
    final LlmSettings settings;

    public StubClient(LlmSettings settings) {
      this.settings = settings;
    }

    @Override
    public String backend() {
      return settings.backend();
    }

    @Override
    public CompletableFuture<ChatResponse> complete(ChatRequest request) {
      return CompletableFuture.failedFuture(new UnsupportedOperationException("stub"));
    }
  }
}
