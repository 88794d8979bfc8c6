package dev.infuse.udfs.llm;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One shared client per distinct {@link LlmSettings} per JVM: a Spark executor builds its client
 * once, on first use, never per row, so the client's in-flight bound and connection pool cover
 * every task in that executor.
 */
public final class LlmClients {
  private static final Map<LlmSettings, LlmClient> CLIENTS = new ConcurrentHashMap<>();

  private LlmClients() {}

  /**
   * The shared client for these settings, built on first use. A client that fails to build is not
   * kept.
   */
  public static LlmClient forSettings(LlmSettings settings) {
    Objects.requireNonNull(settings, "settings");
    LlmClient existing = CLIENTS.get(settings);
    if (existing != null) {
      return existing;
    }
    return CLIENTS.computeIfAbsent(settings, LlmClients::create);
  }

  /** Closes and forgets every shared client: for tests and JVM shutdown. */
  public static void closeAll() {
    List<LlmClient> clients = new ArrayList<>(CLIENTS.values());
    CLIENTS.clear();
    clients.forEach(LlmClient::close);
  }

  private static LlmClient create(LlmSettings settings) {
    Objects.requireNonNull(settings.backend(), "llm.backend");
    return switch (settings.backend()) {
      case OPENAI -> new OpenAiClient(settings);
      case EXTRACTIVE -> new ExtractiveClient(settings);
      case DJL -> new DjlClient(settings);
    };
  }
}
