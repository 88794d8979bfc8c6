package dev.infuse.jobs.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.infuse.udfs.common.Keys;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The canonical JSON of a config (keys sorted, secrets redacted), stored with every run and hashed
 * into its config hash. A value is a secret when its key names one (api_key, secret, password,
 * token, credential; not token counts or tokenizers such as max_tokens and tokenizer); keys ending
 * in {@code _env} only name an environment variable and are kept.
 */
public final class ConfigJson {
  public static final String REDACTED = "***";

  // "token" as a secret (hf_token, auth.token) but not counts and tokenizers (max_tokens,
  // tokens_per_shard, tokenizer): redacting those hid real settings from the record and the hash.
  private static final Pattern SECRET_KEY =
      Pattern.compile(
          ".*(api[_.-]?key|secret|password|passwd|token(?!s|izer)|credential|access[_.-]?key).*");
  private static final ObjectMapper JSON =
      JsonMapper.builder()
          .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
          .enable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
          .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
          .build();

  private ConfigJson() {}

  /** Sorted, redacted JSON of a config or any part of one (a section record, a mixture). */
  public static String canonical(Object config) {
    try {
      // Round-trip through a tree so that map entries and properties are both sorted.
      JsonNode tree = JSON.readTree(JSON.writeValueAsString(config));
      redact(tree);
      return JSON.writeValueAsString(JSON.treeToValue(tree, Object.class));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("config does not serialise", e);
    }
  }

  public static String hash(InfuseConfig config) {
    return Keys.sha256Hex(canonical(config));
  }

  private static void redact(JsonNode node) {
    if (node instanceof ObjectNode object) {
      List<String> names = new ArrayList<>();
      object.fieldNames().forEachRemaining(names::add);
      for (String name : names) {
        String lower = name.toLowerCase(Locale.ROOT);
        JsonNode value = object.get(name);
        if (value.isValueNode()
            && !value.isNull()
            && !lower.endsWith("_env")
            && SECRET_KEY.matcher(lower).matches()) {
          object.put(name, REDACTED);
        } else {
          redact(value);
        }
      }
    } else if (node != null && node.isArray()) {
      node.forEach(ConfigJson::redact);
    }
  }
}
