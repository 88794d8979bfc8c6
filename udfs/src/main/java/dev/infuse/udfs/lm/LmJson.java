package dev.infuse.udfs.lm;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;

/**
 * The Jackson setup for the JSON files of model and checkpoint directories: snake_case keys, as in
 * HuggingFace's config.json. A missing number is an error naming the key rather than a silent 0.
 */
public final class LmJson {
  /** Shared; Jackson mappers are thread-safe once configured. */
  public static final ObjectMapper MAPPER =
      JsonMapper.builder()
          .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
          .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
          .enable(SerializationFeature.INDENT_OUTPUT)
          .build();

  private LmJson() {}
}
