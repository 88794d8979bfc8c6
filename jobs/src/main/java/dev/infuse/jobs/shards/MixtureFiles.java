package dev.infuse.jobs.shards;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.infuse.udfs.mix.MixtureSpec;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads {@code conf/mixtures/*.yaml} into a {@link MixtureSpec}: snake_case keys, unknown keys are
 * errors, and every problem of the values is reported at once, each naming the file and the key.
 */
public final class MixtureFiles {
  private static final ObjectMapper YAML =
      new ObjectMapper(new YAMLFactory())
          .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
          .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);

  /** Every key of a mixture file, all required. */
  static final List<String> KEYS =
      List.of(
          "name",
          "version",
          "total_tokens",
          "qa_fraction",
          "replay_fraction",
          "document_weights",
          "max_epochs",
          "seed");

  private MixtureFiles() {}

  /** The mixture in {@code file}; fails with every problem, prefixed by the file. */
  public static MixtureSpec read(Path file) {
    MixtureSpec spec = parse(file);
    List<String> problems = spec.problems();
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(file + ": " + String.join("; ", problems));
    }
    return spec;
  }

  /** Every problem of {@code file}, for {@code validate}; empty when it is a valid mixture. */
  public static List<String> problems(Path file) {
    try {
      return parse(file).problems();
    } catch (IllegalArgumentException e) {
      return List.of(e.getMessage());
    }
  }

  private static MixtureSpec parse(Path file) {
    JsonNode tree;
    try (InputStream in = Files.newInputStream(file)) {
      tree = YAML.readTree(in);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(file + ": not YAML (" + e.getOriginalMessage() + ")", e);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
    if (tree == null || !tree.isObject()) {
      throw new IllegalArgumentException(
          file + ": expected a mapping with the keys " + String.join(", ", KEYS));
    }
    List<String> problems = new ArrayList<>();
    tree.fieldNames()
        .forEachRemaining(
            key -> {
              if (!KEYS.contains(key)) {
                problems.add("unknown key " + key + ", expected one of " + String.join(", ", KEYS));
              }
            });
    for (String key : KEYS) {
      if (!tree.hasNonNull(key)) {
        problems.add("missing key " + key);
      }
    }
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(file + ": " + String.join("; ", problems));
    }
    try {
      return YAML.treeToValue(tree, MixtureSpec.class);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(file + ": " + e.getOriginalMessage(), e);
    }
  }
}
