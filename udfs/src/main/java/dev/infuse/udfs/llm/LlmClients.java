package dev.infuse.udfs.llm;

import dev.infuse.udfs.common.Registry;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The LLM backends by name, and one shared client per distinct {@link LlmSettings} per JVM: a Spark
 * executor builds its client once, on first use, never per row, so the client's in-flight bound and
 * connection pool cover every task in that executor.
 */
public final class LlmClients {
  /** Backends written elsewhere, registered when their class is on the classpath. */
  private static final Map<String, String> OPTIONAL_BACKENDS =
      Map.of(
          "extractive", "dev.infuse.udfs.llm.ExtractiveClient",
          "djl", "dev.infuse.udfs.llm.DjlClient");

  private static final Registry<Function<LlmSettings, LlmClient>> BACKENDS =
      new Registry<>("backend");
  private static final Map<LlmSettings, LlmClient> CLIENTS = new ConcurrentHashMap<>();

  static {
    BACKENDS.register(OpenAiClient.BACKEND, OpenAiClient::new);
    OPTIONAL_BACKENDS.forEach(LlmClients::registerByClassName);
  }

  private LlmClients() {}

  /**
   * The shared client for these settings, built on first use. Settings with an unknown backend fail
   * with the nearest valid name.
   */
  public static LlmClient forSettings(LlmSettings settings) {
    Objects.requireNonNull(settings, "settings");
    LlmClient existing = CLIENTS.get(settings);
    if (existing != null) {
      return existing;
    }
    Function<LlmSettings, LlmClient> factory = factory(settings.backend());
    return CLIENTS.computeIfAbsent(settings, factory);
  }

  /** Adds a backend. Registering a name twice fails. */
  public static void register(String name, Function<LlmSettings, LlmClient> factory) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(factory, "factory");
    synchronized (BACKENDS) {
      BACKENDS.register(name, factory);
    }
  }

  /** The registered backend names. */
  public static Set<String> backends() {
    synchronized (BACKENDS) {
      return Set.copyOf(BACKENDS.names());
    }
  }

  /** Closes and forgets every shared client: for tests and JVM shutdown. */
  public static void closeAll() {
    List<LlmClient> clients = new ArrayList<>(CLIENTS.values());
    CLIENTS.clear();
    clients.forEach(LlmClient::close);
  }

  private static Function<LlmSettings, LlmClient> factory(String backend) {
    synchronized (BACKENDS) {
      return BACKENDS.get(backend);
    }
  }

  /**
   * Registers {@code className} under {@code name} if the class is present, through its public
   * {@code (LlmSettings)} constructor; an absent class is skipped, so this module compiles and runs
   * without it.
   *
   * @return whether it was registered
   */
  static boolean registerByClassName(String name, String className) {
    Class<?> type;
    try {
      type = Class.forName(className, false, LlmClients.class.getClassLoader());
    } catch (ClassNotFoundException absent) {
      return false;
    }
    if (!LlmClient.class.isAssignableFrom(type)) {
      throw new IllegalStateException(className + " is not an " + LlmClient.class.getName());
    }
    Constructor<? extends LlmClient> constructor;
    try {
      constructor = type.asSubclass(LlmClient.class).getConstructor(LlmSettings.class);
    } catch (NoSuchMethodException e) {
      throw new IllegalStateException(className + " has no public constructor (LlmSettings)", e);
    }
    register(name, settings -> construct(constructor, settings));
    return true;
  }

  private static LlmClient construct(
      Constructor<? extends LlmClient> constructor, LlmSettings settings) {
    try {
      return constructor.newInstance(settings);
    } catch (InvocationTargetException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException runtime) {
        throw runtime;
      }
      if (cause instanceof Error error) {
        throw error;
      }
      throw new IllegalStateException(
          "could not build " + constructor.getDeclaringClass().getName(), cause);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(
          "could not build " + constructor.getDeclaringClass().getName(), e);
    }
  }
}
