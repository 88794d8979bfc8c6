package dev.infuse.udfs.generate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.infuse.udfs.RepoPaths;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The QuALITY sample's articles with their titles and questions, for generation tests on real
 * prose.
 */
public final class QualityDocuments {
  /** One article. */
  public record Doc(String title, String article, List<String> questions) {}

  private QualityDocuments() {}

  public static List<Doc> load() {
    Path sample = RepoPaths.shared().resolve("benchmarks/quality/quality_dev_sample.jsonl");
    if (!Files.isRegularFile(sample)) {
      throw new IllegalStateException("QuALITY sample missing: " + sample);
    }
    ObjectMapper mapper = new ObjectMapper();
    List<Doc> docs = new ArrayList<>();
    try {
      for (String line : Files.readAllLines(sample)) {
        if (line.isBlank()) {
          continue;
        }
        JsonNode record = mapper.readTree(line);
        List<String> questions = new ArrayList<>();
        for (JsonNode question : record.path("questions")) {
          questions.add(question.get("question").asText());
        }
        docs.add(new Doc(record.get("title").asText(), record.get("article").asText(), questions));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return docs;
  }
}
