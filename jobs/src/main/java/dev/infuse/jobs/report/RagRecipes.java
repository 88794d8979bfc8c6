package dev.infuse.jobs.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.infuse.jobs.report.ReportData.RunInfo;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The RAG recipes behind a report's rag settings, read from the recorded config of each answer run
 * ({@code runs.config_json}): which recipe a run used, and what that recipe's retrieval settings
 * were, stated the way a reader compares them with a paper's (chunking, scope, query, reranker,
 * retriever, reader).
 */
final class RagRecipes {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** What one recipe did, each setting as a short phrase. */
  record Recipe(String name, Map<String, String> settings) {}

  private final Map<String, String> recipeOfRun;
  private final Map<String, Recipe> recipes;

  private RagRecipes(Map<String, String> recipeOfRun, Map<String, Recipe> recipes) {
    this.recipeOfRun = recipeOfRun;
    this.recipes = recipes;
  }

  /** The recipes of the answer runs among {@code runs} whose setting reads retrieved chunks. */
  static RagRecipes of(List<RunInfo> runs) {
    Map<String, String> recipeOfRun = new LinkedHashMap<>();
    Map<String, Recipe> recipes = new TreeMap<>();
    for (RunInfo run : runs) {
      if (!"answer".equals(run.job()) || run.configJson() == null) {
        continue;
      }
      JsonNode config;
      try {
        config = JSON.readTree(run.configJson());
      } catch (IOException e) {
        continue; // a run without a readable config shows its setting unlabelled
      }
      String setting = config.path("answer").path("setting").asText("");
      if (!setting.endsWith("rag")) {
        continue;
      }
      String name = config.path("rag").path("recipe").asText("default");
      recipeOfRun.put(run.runId(), name);
      recipes.putIfAbsent(name, new Recipe(name, describe(config)));
    }
    return new RagRecipes(recipeOfRun, recipes);
  }

  /** The recipes, by name. */
  List<Recipe> recipes() {
    return List.copyOf(recipes.values());
  }

  /**
   * A setting as the report shows it: a rag setting gets its recipe, {@code rag [entigraph]}, when
   * the report holds more than one recipe or one that is not the default.
   */
  String label(String runId, String setting) {
    String recipe = recipeOfRun.get(runId);
    if (recipe == null || setting == null || !setting.endsWith("rag") || !labelled()) {
      return setting;
    }
    return setting + " [" + recipe + "]";
  }

  /** The recipe of a run, or null when it read no retrieved chunks. */
  String recipeOf(String runId) {
    return recipeOfRun.get(runId);
  }

  private boolean labelled() {
    return recipes.size() > 1 || (recipes.size() == 1 && !recipes.containsKey("default"));
  }

  /** The setting without its recipe label, for ordering. */
  static String bare(String label) {
    int at = label == null ? -1 : label.indexOf(" [");
    return at < 0 ? label : label.substring(0, at);
  }

  private static Map<String, String> describe(JsonNode config) {
    JsonNode chunk = config.path("chunk");
    JsonNode retrieve = config.path("retrieve");
    JsonNode answer = config.path("answer");
    JsonNode embed = config.path("embed");
    Map<String, String> d = new LinkedHashMap<>();
    boolean chars = "chars".equals(chunk.path("unit").asText("tokens"));
    String prefix = chunk.path("prefix_template").asText("");
    d.put(
        "chunks",
        (chars
                ? chunk.path("max_chars").asText("?") + " characters, split recursively"
                : chunk.path("max_tokens").asText("?")
                    + " tokens ("
                    + chunk.path("tokenizer").asText("default")
                    + " tokenizer)")
            + ", overlap "
            + (chars
                ? chunk.path("overlap_chars").asText("0")
                : chunk.path("overlap_tokens").asText("0"))
            + (prefix.isEmpty() || "null".equals(prefix)
                ? ", no metadata prefix"
                : ", prefix " + prefix));
    String scoping = retrieve.path("scoping").asText("auto");
    d.put(
        "scope",
        switch (scoping) {
          case "corpus" -> "corpus: each question searches its benchmark's whole corpus";
          case "document" ->
              "oracle document: each question searches only its own document, which the EntiGraph"
                  + " baseline does not know";
          default ->
              "oracle document where a question has one (auto: QuALITY and LongHealth search only"
                  + " their own document), else the whole corpus";
        });
    String query = retrieve.path("query_template").asText("");
    d.put("query", query.isEmpty() || "null".equals(query) ? "the question alone" : query);
    String retriever = retrieve.path("retriever").asText("?");
    d.put(
        "retriever",
        String.format(
            Locale.ROOT,
            "%s, top %s%s",
            retriever,
            retrieve.path("k").asText("?"),
            retriever.equals("bm25")
                ? ""
                : ", embedder "
                    + embed.path("model").asText("default")
                    + (embed.has("long_text")
                        ? " (long texts: " + embed.path("long_text").asText() + ")"
                        : "")));
    String rerank = retrieve.path("rerank").asText("");
    d.put(
        "reranker",
        rerank.isEmpty() || "null".equals(rerank)
            ? "none: no reranker was given, so the recipe ran without one"
            : String.format(
                Locale.ROOT,
                "%s: top %s candidates reranked, best %s kept",
                rerank,
                retrieve.path("rerank_depth").asText("?"),
                retrieve.path("rerank_top_k").asText("?")));
    List<String> reader = new ArrayList<>();
    reader.add(answer.path("k").asText("?") + " chunks");
    reader.add(answer.path("chunk_order").asText("?"));
    reader.add(answer.path("reader").asText("zero_shot") + " prompt");
    reader.add(answer.path("mode").asText("auto") + " mode");
    d.put("reader", String.join(", ", reader));
    return d;
  }
}
