package dev.infuse.tests;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** What a killed run's LLM call journal ({@code _journal/llm_calls}) says had succeeded. */
final class KilledRunJournal {
  private static final ObjectMapper JSON = new ObjectMapper();

  private KilledRunJournal() {}

  /**
   * The request JSON of every succeeded call in the journal's files; the line a kill cut short is
   * skipped, as the resuming run skips it.
   */
  static List<String> succeededRequests(Path journal) throws Exception {
    List<String> requests = new ArrayList<>();
    if (!Files.isDirectory(journal)) {
      return requests;
    }
    try (Stream<Path> files = Files.walk(journal)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".jsonl")).toList()) {
        for (String line : Files.readAllLines(file)) {
          JsonNode call;
          try {
            call = JSON.readTree(line);
          } catch (Exception truncated) {
            continue;
          }
          if ("succeeded".equals(call.path("status").asText())) {
            requests.add(call.get("request").asText());
          }
        }
      }
    }
    return requests;
  }
}
