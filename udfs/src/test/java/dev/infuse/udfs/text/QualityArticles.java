package dev.infuse.udfs.text;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.infuse.udfs.RepoPaths;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** The long prose of the QuALITY sample in the shared folder, for chunking real text in tests. */
final class QualityArticles {
  private static final String SAMPLE = "benchmarks/quality/quality_dev_sample.jsonl";

  private QualityArticles() {}

  /** Each distinct article of the sample, in file order. */
  static List<String> load() {
    Path sample = sharedDir().resolve(SAMPLE);
    if (!Files.isRegularFile(sample)) {
      throw new IllegalStateException("QuALITY sample missing: " + sample);
    }
    ObjectMapper mapper = new ObjectMapper();
    Set<String> articles = new LinkedHashSet<>();
    try {
      for (String line : Files.readAllLines(sample)) {
        if (!line.isBlank()) {
          JsonNode record = mapper.readTree(line);
          articles.add(record.get("article").asText());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new ArrayList<>(articles);
  }

  /**
   * The articles repeated and joined with blank lines until the text is {@code length} chars long.
   */
  static String concatenated(int length) {
    StringBuilder text = new StringBuilder();
    List<String> articles = load();
    for (int i = 0; text.length() < length; i++) {
      text.append(articles.get(i % articles.size())).append("\n\n");
    }
    return text.substring(0, length);
  }

  private static Path sharedDir() {
    return RepoPaths.shared();
  }
}
