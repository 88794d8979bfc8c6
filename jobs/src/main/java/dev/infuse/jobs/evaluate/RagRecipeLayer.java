package dev.infuse.jobs.evaluate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.infuse.jobs.chunk.RagConfig;
import dev.infuse.jobs.config.ConfigException;
import dev.infuse.jobs.config.ConfigLoader;
import dev.infuse.jobs.config.InfuseConfig;
import dev.infuse.jobs.config.InfuseHome;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One RAG recipe of an evaluation: a config file layered over the evaluation's config for the steps
 * of its rag settings, or the config as it is ({@code file} null).
 *
 * @param file as listed in {@code evaluate.rag_recipes}; null for the config's own recipe
 * @param path where the file is
 * @param name its {@code rag.recipe}
 */
record RagRecipeLayer(String file, Path path, String name) {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  /** Layers the recipe's file, if any, over {@code loader}. */
  void applyTo(ConfigLoader loader) {
    if (path != null) {
      loader.file(path);
    }
  }

  /** How the step titles name the recipe. */
  String label() {
    return "rag.recipe " + name + (file == null ? "" : " (" + file + ")");
  }

  /**
   * The recipes of {@code evaluate.rag_recipes}, or the config's own; fails naming every file that
   * is missing, names no {@code rag.recipe}, or repeats another's name.
   */
  static List<RagRecipeLayer> of(InfuseConfig config, EvaluateConfig options) {
    if (options.ragRecipes().isEmpty()) {
      return List.of(new RagRecipeLayer(null, null, config.section(RagConfig.class).recipe()));
    }
    List<String> problems = new ArrayList<>();
    List<RagRecipeLayer> recipes = new ArrayList<>();
    Map<String, String> fileOfName = new HashMap<>();
    for (String file : options.ragRecipes()) {
      Path path = InfuseHome.resolve(file);
      if (!Files.isRegularFile(path)) {
        problems.add(
            "evaluate.rag_recipes: got "
                + file
                + " ("
                + path
                + "), expected an existing YAML file such as conf/rag/entigraph.yaml");
        continue;
      }
      String name = recipeName(path);
      if (name == null) {
        problems.add(
            "evaluate.rag_recipes: "
                + file
                + " sets no rag.recipe, expected one, so that its chunks, index, retrievals and"
                + " predictions are kept apart from the other recipes'");
        continue;
      }
      String other = fileOfName.putIfAbsent(name, file);
      if (other != null) {
        problems.add(
            "evaluate.rag_recipes: "
                + file
                + " and "
                + other
                + " both set rag.recipe "
                + name
                + ", expected a different name in each");
        continue;
      }
      recipes.add(new RagRecipeLayer(file, path, name));
    }
    if (!problems.isEmpty()) {
      throw new ConfigException(problems);
    }
    return List.copyOf(recipes);
  }

  private static String recipeName(Path path) {
    try {
      JsonNode recipe = YAML.readTree(path.toFile()).path("rag").path("recipe");
      return recipe.isTextual() ? recipe.asText() : null;
    } catch (IOException e) {
      throw new ConfigException(
          List.of("evaluate.rag_recipes: cannot read " + path + ": " + e.getMessage()));
    }
  }
}
