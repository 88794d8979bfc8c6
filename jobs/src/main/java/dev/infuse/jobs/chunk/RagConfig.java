package dev.infuse.jobs.chunk;

import dev.infuse.jobs.config.ConfigSection;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code rag} section: which RAG recipe the chunk, index, retrieve and answer steps work in.
 *
 * <p>A recipe is a name for one way of doing retrieval-augmented answering (its chunking, scope,
 * query, reranker and reader, set by a file such as {@code conf/rag/entigraph.yaml}). Its chunks,
 * index and retrievals are kept apart from every other recipe's, so that two recipes can be
 * evaluated side by side in one warehouse, and its predictions and scores carry its name.
 *
 * @param recipe lowercase letters, digits, '-' and '_'; {@link #DEFAULT} for the built-in defaults
 */
public record RagConfig(String recipe) implements ConfigSection {
  /** The recipe of the built-in defaults; its chunk ids and index are those of older releases. */
  public static final String DEFAULT = "default";

  @Override
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    if (recipe == null || !recipe.matches("[a-z0-9][a-z0-9_-]{0,63}")) {
      problems.add(
          "recipe: got "
              + recipe
              + ", expected a name of lowercase letters, digits, '-' and '_' (at most 64), e.g."
              + " default or entigraph");
    }
    return problems;
  }

  /** Whether this is the built-in recipe, whose tables and index carry no recipe suffix. */
  public boolean isDefault() {
    return DEFAULT.equals(recipe);
  }
}
