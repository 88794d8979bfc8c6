package dev.infuse.udfs.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The per-JVM model cache: DJL's Spark pattern of a serializable loader with a transient model,
 * kept in one place. A model is loaded on first use and shared by every task in the executor;
 * callers create their own predictors from it per partition and close those, never the model.
 */
public final class ExecutorModels {
  private static final Map<String, AutoCloseable> MODELS = new ConcurrentHashMap<>();
  private static final Map<String, AtomicInteger> LOADS = new ConcurrentHashMap<>();

  private ExecutorModels() {}

  /**
   * The model for {@code spec}, loading it if this JVM has not yet. Concurrent first calls load
   * once.
   */
  public static <M extends AutoCloseable> M get(ModelSpec<M> spec) {
    Objects.requireNonNull(spec, "spec");
    String key = spec.cacheKey();
    AutoCloseable model =
        MODELS.computeIfAbsent(
            key,
            k -> {
              LOADS.computeIfAbsent(k, ignored -> new AtomicInteger()).incrementAndGet();
              return Objects.requireNonNull(spec.load(), () -> "model spec " + k + " loaded null");
            });
    @SuppressWarnings("unchecked") // one key, one spec type: cacheKey() names the kind
    M typed = (M) model;
    return typed;
  }

  /**
   * How many times this JVM has loaded the model under {@code cacheKey}: the proof of "once per
   * executor".
   */
  public static int loadCount(String cacheKey) {
    AtomicInteger count = LOADS.get(cacheKey);
    return count == null ? 0 : count.get();
  }

  /** Closes and forgets one model, for example after its directory was rewritten. */
  public static void evict(String cacheKey) {
    AutoCloseable model = MODELS.remove(cacheKey);
    closeQuietly(model);
  }

  /** Closes and forgets every model: for tests and JVM shutdown. Load counts are kept. */
  public static void closeAll() {
    List<AutoCloseable> models = new ArrayList<>(MODELS.values());
    MODELS.clear();
    models.forEach(ExecutorModels::closeQuietly);
  }

  private static void closeQuietly(AutoCloseable model) {
    if (model == null) {
      return;
    }
    try {
      model.close();
    } catch (Exception e) {
      // A model that fails to close leaks native memory at worst; the caller is done with it.
    }
  }
}
