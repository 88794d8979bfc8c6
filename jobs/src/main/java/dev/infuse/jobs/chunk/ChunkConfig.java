package dev.infuse.jobs.chunk;

import dev.infuse.jobs.config.ConfigSection;
import dev.infuse.udfs.text.CharChunkSpec;
import dev.infuse.udfs.text.ChunkPrefixTemplate;
import dev.infuse.udfs.text.Separator;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code chunk} section.
 *
 * @param unit {@value #TOKENS} (cut by {@code max_tokens} of the tokenizer) or {@value #CHARS} (cut
 *     by {@code max_chars}, recursively at {@code separators}: EntiGraph's RAG baseline)
 * @param maxTokens the chunk size in tokens, for unit tokens
 * @param overlapTokens tokens shared by consecutive chunks, for unit tokens
 * @param maxChars the chunk size in characters (code points), for unit chars
 * @param overlapChars characters shared by consecutive chunks, for unit chars
 * @param separators the split levels for unit chars ({@link Separator} names), ending with char
 * @param tokenizer {@code default} (all-MiniLM-L6-v2, shipped in the jar) or the path or URI of a
 *     HuggingFace tokenizer.json; unit tokens cuts by it, both units count {@code n_tokens} with it
 * @param prefixTemplate the metadata prefix of each chunk ({@link ChunkPrefixTemplate}); null for
 *     none
 * @param corpus chunk only this corpus; null for every document
 */
public record ChunkConfig(
    String unit,
    int maxTokens,
    int overlapTokens,
    int maxChars,
    int overlapChars,
    List<String> separators,
    String tokenizer,
    String prefixTemplate,
    String corpus)
    implements ConfigSection {
  public static final String TOKENS = "tokens";
  public static final String CHARS = "chars";

  @Override
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    if (!TOKENS.equals(unit) && !CHARS.equals(unit)) {
      problems.add(
          "unit: got "
              + (unit == null ? "nothing" : "'" + unit + "'")
              + ", expected tokens or chars");
    }
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
    if (maxChars < CharChunkSpec.MIN_MAX_CHARS) {
      problems.add(
          "max_chars: got " + maxChars + ", expected an integer >= " + CharChunkSpec.MIN_MAX_CHARS);
    }
    if (overlapChars < 0 || overlapChars >= Math.max(maxChars, 1)) {
      problems.add(
          "overlap_chars: got "
              + overlapChars
              + ", expected 0 <= overlap < max_chars ("
              + maxChars
              + ")");
    }
    if (separators == null) {
      problems.add(
          "separators: got nothing, expected a list such as [paragraph, line, word, char]");
    } else {
      try {
        String problem = CharChunkSpec.separatorsProblem(separatorList());
        if (problem != null) {
          problems.add("separators: " + problem);
        }
      } catch (IllegalArgumentException e) {
        problems.add(e.getMessage().replaceFirst("^separator: ", "separators: "));
      }
    }
    if (tokenizer == null || tokenizer.isBlank()) {
      problems.add("tokenizer: got nothing, expected 'default' or the path of a tokenizer.json");
    }
    if (prefixTemplate != null) {
      String problem = ChunkPrefixTemplate.problem(prefixTemplate);
      if (problem != null) {
        problems.add(problem.replaceFirst("^chunk\\.", ""));
      }
    }
    return problems;
  }

  /** The separators as {@link Separator}s. */
  public List<Separator> separatorList() {
    return separators.stream().map(Separator::of).toList();
  }

  /** The char chunking spec; only valid for a config without problems. */
  public CharChunkSpec charSpec() {
    return new CharChunkSpec(maxChars, overlapChars, separatorList());
  }
}
