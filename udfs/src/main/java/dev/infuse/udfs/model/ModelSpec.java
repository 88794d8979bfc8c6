package dev.infuse.udfs.model;

import java.io.Serializable;

/**
 * What a Spark closure carries instead of a model: a small, serializable description that can load
 * the model where it runs. Executors resolve it through {@link ExecutorModels}, so the model is
 * loaded once per executor JVM however many tasks use it, and nothing heavy crosses the wire.
 *
 * <p>Two specs with the same {@link #cacheKey()} must load the same model.
 *
 * @param <M> the loaded model
 */
public interface ModelSpec<M extends AutoCloseable> extends Serializable {
  /** Identifies the loaded model within one JVM: kind, location and device. */
  String cacheKey();

  /** Loads the model. Called at most once per JVM per cache key. */
  M load();
}
