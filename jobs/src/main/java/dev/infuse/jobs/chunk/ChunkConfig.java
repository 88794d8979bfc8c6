package dev.infuse.jobs.chunk;

import dev.infuse.jobs.config.ConfigSection;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code chunk} section.
 *
 * @param maxTokens the chunk size in tokens (EntiGraph's RAG recipe: 1024)
 * @param overlapTokens tokens shared by consecutive chunks
 * @param tokenizer {@code default} (all-MiniLM-L6-v2, shipped in the jar) or the path or URI of a
 *     HuggingFace tokenizer.json
 * @param corpus chunk only this corpus; null for every document
 */
public record ChunkConfig(int maxTokens, int overlapTokens, String tokenizer, String corpus)
    implements ConfigSection {
  @Override
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    if (maxTokens < 16) {
      problems.add("max_tokens: got " + maxTokens + ", expected an integer >= 16");
    }
    if (overlapTokens < 0 || overlapTokens * 2 >= Math.max(maxTokens, 1)) {
      problems.add(
          "overlap_tokens: got "
              + overlapTokens
              + ", expected 0 <= overlap < max_tokens / 2 ("
              + maxTokens
              + " / 2)");
    }
    if (tokenizer == null || tokenizer.isBlank()) {
      problems.add("tokenizer: got nothing, expected 'default' or the path of a tokenizer.json");
    }
    return problems;
  }
}
