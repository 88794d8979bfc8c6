package dev.infuse.jobs.evaluate;

import dev.infuse.jobs.config.ConfigSection;
import dev.infuse.udfs.answer.PromptFormats;
import dev.infuse.udfs.answer.Setting;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The {@code evaluate} section: the whole evaluation of Synthetic Mixed Training from one config,
 * as a chain of recorded jobs. See defaults.yaml for each key.
 *
 * @param benchmarks questions.benchmark of each benchmark evaluated (quality, longhealth,
 *     financebench, ...)
 * @param settings the answer settings run on every benchmark
 * @param models the trained settings' models: directories from {@code train}, or models served by
 *     OpenAI-compatible endpoints ({@link EvaluateModel}); several trained on different synthetic
 *     token counts are a sweep, fitted by {@code fit-scaling}
 * @param compare setting pairs {@code [[a, b], ...]} compared (b - a) on every benchmark; a trained
 *     setting stands for the last model of {@code models}; a pair with a setting not run is skipped
 * @param ragRecipes config files (relative to the Infuse home), one per RAG recipe, each layered
 *     over the config for the steps of its rag settings (chunk, index, retrieve, answer), so that
 *     the recipes are evaluated side by side; empty for the config's own {@code rag.recipe}
 * @param ragRecipeSettings the rag settings run under every recipe after the first (the first runs
 *     every rag setting of {@code settings})
 * @param retrieve chunk, index and retrieve before the rag settings; false reads {@code retrievals}
 *     as they are
 * @param report write the HTML and JSON report at the end
 * @param batchAnswers answer the runs that share a model in one Spark pass ({@link
 *     dev.infuse.jobs.answer.AnswerBatch}); false answers each alone
 */
public record EvaluateConfig(
    List<String> benchmarks,
    List<Setting> settings,
    List<EvaluateModel> models,
    List<List<Setting>> compare,
    List<String> ragRecipes,
    List<Setting> ragRecipeSettings,
    boolean retrieve,
    boolean report,
    boolean batchAnswers)
    implements ConfigSection {

  /** Whether any setting reads retrieved chunks. */
  public boolean anyRag() {
    return settings.stream().anyMatch(Setting::rag);
  }

  @Override
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    List<String> known = PromptFormats.benchmarks();
    for (String benchmark : benchmarks) {
      if (!known.contains(benchmark)) {
        problems.add(
            "benchmarks: got " + benchmark + ", expected one of " + String.join(", ", known));
      }
    }
    if (settings.size() != new HashSet<>(settings).size()) {
      problems.add("settings: got " + settings + ", expected each setting once");
    }
    Set<String> labels = new HashSet<>();
    for (int i = 0; i < models.size(); i++) {
      EvaluateModel model = models.get(i);
      if (model == null || model.dir() != null && model.dir().isBlank()) {
        problems.add(
            "models["
                + i
                + "]: got an empty entry in "
                + models
                + ", expected a model directory or an endpoint mapping");
        continue;
      }
      for (String problem : model.problems()) {
        problems.add("models[" + i + "]" + problem);
      }
      if (model.problems().isEmpty() && !labels.add(model.label())) {
        problems.add(
            "models["
                + i
                + "]: got "
                + model.label()
                + " a second time, expected each model once (give endpoint models distinct names)");
      }
    }
    for (String file : ragRecipes) {
      if (file == null || file.isBlank()) {
        problems.add(
            "rag_recipes: got an empty entry in "
                + ragRecipes
                + ", expected config files such as conf/rag/entigraph.yaml");
      }
    }
    if (ragRecipes.size() != new HashSet<>(ragRecipes).size()) {
      problems.add("rag_recipes: got " + ragRecipes + ", expected each file once");
    }
    for (Setting setting : ragRecipeSettings) {
      if (setting == null || !setting.rag()) {
        problems.add(
            "rag_recipe_settings: got "
                + setting
                + " in "
                + ragRecipeSettings
                + ", expected rag settings (rag, trained_rag)");
      }
    }
    for (List<Setting> pair : compare) {
      if (pair.size() != 2 || pair.get(0) == pair.get(1)) {
        problems.add(
            "compare: got pair " + pair + ", expected two different settings [a, b] in each pair");
      }
    }
    return problems;
  }
}
