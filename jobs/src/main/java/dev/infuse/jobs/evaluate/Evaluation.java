package dev.infuse.jobs.evaluate;

import static org.apache.spark.sql.functions.col;

import dev.infuse.jobs.answer.AnswerBatch;
import dev.infuse.jobs.answer.AnswerConfig;
import dev.infuse.jobs.answer.AnswerJob;
import dev.infuse.jobs.answer.AnswerMode;
import dev.infuse.jobs.answer.EndpointModel;
import dev.infuse.jobs.answer.TrainedOn;
import dev.infuse.jobs.chunk.ChunkJob;
import dev.infuse.jobs.chunk.RagConfig;
import dev.infuse.jobs.config.ConfigException;
import dev.infuse.jobs.config.ConfigLoader;
import dev.infuse.jobs.config.InfuseConfig;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.jobs.llm.LlmConfig;
import dev.infuse.jobs.report.ReportConfig;
import dev.infuse.jobs.report.ReportData;
import dev.infuse.jobs.report.ReportJob;
import dev.infuse.jobs.retrieve.IndexJob;
import dev.infuse.jobs.retrieve.RetrieveConfig;
import dev.infuse.jobs.retrieve.RetrieveJob;
import dev.infuse.jobs.run.RecordedSteps;
import dev.infuse.jobs.score.FitScalingJob;
import dev.infuse.jobs.score.ScoreConfig;
import dev.infuse.jobs.score.ScoreJob;
import dev.infuse.jobs.train.TrainJob;
import dev.infuse.udfs.answer.PromptFormats;
import dev.infuse.udfs.answer.Setting;
import dev.infuse.udfs.lm.ModelDirectory;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.sql.Row;

/**
 * The evaluation of Synthetic Mixed Training as a chain of recorded jobs, planned from the {@code
 * evaluate} section: chunk, index and retrieve (for the rag settings); answer every benchmark in
 * every setting, the trained settings once per model; score everything in one run with the paired
 * comparisons; fit the scaling curve of each trained setting on each benchmark when the models span
 * two or more synthetic token counts; report.
 *
 * <p>It only sets the keys that tie the steps together (which benchmark, setting, model, run ids);
 * every other key (llm.*, answer.k, retrieve.retriever, score.bootstrap_resamples, ...) applies as
 * configured. {@code evaluate} runs it alone; {@code demo} runs it after building and training.
 */
public final class Evaluation {
  private final InfuseConfig config;
  private final EvaluateConfig options;
  private final List<Model> models;
  private final List<RagRecipeLayer> recipes;
  private final List<Setting> untrained;
  private final List<Setting> trained;
  private final boolean fit;
  private final String notFitted;
  private final boolean chunk;

  /**
   * A model of the sweep: a directory as configured and where it is, or an endpoint; and what its
   * train_info.json (a directory) or its shard build's info.json or synthetic_tokens (an endpoint)
   * says about its synthetic data.
   */
  public record Model(String dir, Path path, EndpointModel endpoint, TrainedOn trainedOn) {
    String label() {
      String trained = trainedOn.describe();
      String name = endpoint == null ? dir : endpoint.toString();
      return name + (trained.isEmpty() ? "" : " (" + trained + ")");
    }

    /** train_info.json synthetic_tokens: tokens written to its shards. */
    public Long syntheticTokens() {
      return trainedOn.syntheticTokens();
    }

    /**
     * The model's position on the scaling axis {@code count}, as fit-scaling reads it: that count,
     * or (for a model trained before it was recorded) synthetic_tokens; null when it has neither.
     */
    Long scalingTokens(ScoreConfig.ScalingTokens count) {
      Long tokens =
          count == ScoreConfig.ScalingTokens.UNIQUE ? trainedOn.unique() : trainedOn.seen();
      return tokens != null ? tokens : trainedOn.syntheticTokens();
    }
  }

  /** The run ids of one evaluation. */
  public record Result(
      List<String> retrieveRuns,
      Map<String, String> answerRuns,
      String scoreRun,
      List<String> fitRuns,
      String reportRun) {}

  /**
   * Plans the evaluation; fails before any job runs when a benchmark list is empty, a trained
   * setting has no model, or a model directory was not written by {@code train}.
   *
   * @param chunk whether the retrieval steps start with {@code chunk}; false when the caller just
   *     chunked
   */
  public Evaluation(InfuseConfig config, boolean chunk) {
    this.config = config;
    this.chunk = chunk;
    this.options = config.section(EvaluateConfig.class);
    List<String> problems = new ArrayList<>();
    if (options.benchmarks().isEmpty()) {
      problems.add(
          "evaluate.benchmarks: got [], expected one or more benchmarks, e.g. [quality, longhealth, financebench]");
    }
    if (options.settings().isEmpty()) {
      problems.add(
          "evaluate.settings: got [], expected one or more of closed_book, rag, trained, trained_rag");
    }
    if (retrieves()
        && config.section(AnswerConfig.class).k() > config.section(RetrieveConfig.class).k()) {
      // Only here: answer alone may read fewer retrieved chunks than it asks for, retrieve alone
      // any k.
      problems.add(
          "answer.k: got "
              + config.section(AnswerConfig.class).k()
              + " with retrieve.k "
              + config.section(RetrieveConfig.class).k()
              + ", expected answer.k <= retrieve.k: evaluate retrieves retrieve.k chunks and answers from the top answer.k");
    }
    this.recipes = RagRecipeLayer.of(config, options);
    this.untrained = options.settings().stream().filter(s -> !s.trained()).toList();
    this.trained = options.settings().stream().filter(Setting::trained).toList();
    List<Model> found = new ArrayList<>();
    if (!trained.isEmpty() && options.models().isEmpty()) {
      problems.add(
          "evaluate.models: got [] with settings "
              + trained
              + ", expected one or more model directories"
              + " written by train");
    }
    List<EvaluateModel> entries = trained.isEmpty() ? List.of() : options.models();
    Configuration hadoop = hadoopConfiguration(config);
    for (int i = 0; i < entries.size(); i++) {
      EvaluateModel entry = entries.get(i);
      if (entry.endpoint() != null) {
        String option = "evaluate.models[" + i + "]";
        EndpointModel endpoint = entry.endpoint();
        String problem = endpointProblem(config, hadoop, endpoint, option);
        if (problem != null) {
          problems.add(problem);
          continue;
        }
        try {
          found.add(
              new Model(
                  null, null, endpoint, endpoint.trainedOn(config.warehouse(), hadoop, option)));
        } catch (ConfigException e) {
          problems.addAll(e.problems());
        }
        continue;
      }
      String dir = entry.dir();
      Path path = TrainJob.modelDir(config.warehouse(), dir);
      if (!Files.isRegularFile(path.resolve(ModelDirectory.CONFIG))) {
        problems.add(
            "evaluate.models["
                + i
                + "]: got "
                + dir
                + " ("
                + path
                + "), expected a model directory written by train"
                + " (with "
                + ModelDirectory.CONFIG
                + "), or an endpoint mapping {name, base_url, model, ...}");
      } else {
        found.add(new Model(dir, path, null, TrainedOn.read(path)));
      }
    }
    if (!problems.isEmpty()) {
      throw new ConfigException(problems);
    }
    this.models = List.copyOf(found);
    // As fit-scaling groups them: per generator, on score.scaling_tokens; a fit needs one generator
    // at two or more token counts.
    ScoreConfig.ScalingTokens count = config.section(ScoreConfig.class).scalingTokens();
    Map<String, Set<Long>> countsByGenerator = new LinkedHashMap<>();
    for (Model model : models) {
      Long tokens = model.scalingTokens(count);
      if (tokens != null && tokens > 0) {
        countsByGenerator
            .computeIfAbsent(String.valueOf(model.trainedOn().generator()), g -> new TreeSet<>())
            .add(tokens);
      }
    }
    this.fit = countsByGenerator.values().stream().anyMatch(tokens -> tokens.size() >= 2);
    if (!fit && models.size() >= 2 && countsByGenerator.size() > 1) {
      // Each generator is its own line, and none has two points.
      this.notFitted =
          "no scaling fit: each generator's models take one "
              + count
              + " synthetic token count "
              + countsByGenerator
              + ", and models of different generators are fitted apart (an endpoint model with"
              + " synthetic_tokens alone has no generator: name its shards build instead, whose"
              + " info.json gives the generator and the unique and seen counts)";
    } else if (!fit && models.size() >= 2 && !countsByGenerator.isEmpty()) {
      this.notFitted =
          "no scaling fit: per generator, the models' "
              + count
              + " synthetic tokens take one value "
              + countsByGenerator
              + (count == ScoreConfig.ScalingTokens.UNIQUE
                  ? " (their shards differ only in repetitions; score.scaling_tokens=seen fits on"
                      + " seen tokens)"
                  : "");
    } else {
      this.notFitted = null;
    }
  }

  public List<Model> models() {
    return models;
  }

  /**
   * What stops an endpoint model from being answered in this evaluation, checked before any job
   * runs: log-likelihood (answer.mode auto on a choice benchmark, or loglikelihood) needs its
   * tokenizer, which must exist. Null when nothing does.
   */
  private static String endpointProblem(
      InfuseConfig config, Configuration hadoop, EndpointModel endpoint, String option) {
    AnswerMode mode = config.section(AnswerConfig.class).mode();
    List<String> scored = new ArrayList<>();
    for (String benchmark : config.section(EvaluateConfig.class).benchmarks()) {
      if (PromptFormats.benchmarks().contains(benchmark)
          && PromptFormats.forBenchmark(benchmark).supportsLoglikelihood()
          && (mode == AnswerMode.AUTO || mode == AnswerMode.LOGLIKELIHOOD)) {
        scored.add(benchmark);
      }
    }
    if (scored.isEmpty()) {
      return null;
    }
    if (endpoint.tokenizer() == null) {
      return option
          + ".tokenizer: got nothing for endpoint model "
          + endpoint.label()
          + ", expected the served model's tokenizer.json: answer.mode "
          + mode
          + " scores "
          + String.join(", ", scored)
          + " by log-likelihood, which counts the context's and the continuation's tokens with"
          + " it (or set answer.mode=generate)";
    }
    org.apache.hadoop.fs.Path tokenizer = new org.apache.hadoop.fs.Path(endpoint.tokenizer());
    try {
      FileSystem fs = tokenizer.getFileSystem(hadoop);
      if (!fs.exists(tokenizer)) {
        return option
            + ".tokenizer: got "
            + endpoint.tokenizer()
            + ", which does not exist; expected the served model's tokenizer.json (or a directory"
            + " holding one)";
      }
    } catch (IOException e) {
      return option + ".tokenizer: cannot read " + endpoint.tokenizer() + ": " + e.getMessage();
    }
    return null;
  }

  /** The Hadoop configuration the session will have: defaults plus spark.hadoop.* of spark.conf. */
  private static Configuration hadoopConfiguration(InfuseConfig config) {
    Configuration hadoop = new Configuration();
    config
        .spark()
        .conf()
        .forEach(
            (key, value) -> {
              if (key.startsWith("spark.hadoop.")) {
                hadoop.set(key.substring("spark.hadoop.".length()), String.valueOf(value));
              }
            });
    return hadoop;
  }

  /**
   * Whether the models span two or more synthetic token counts, so that the scaling curve is
   * fitted.
   */
  public boolean fitsScaling() {
    return fit;
  }

  /** Why the models span no scaling fit, when they are a sweep that cannot be fitted; else null. */
  public String notFitted() {
    return notFitted;
  }

  private boolean retrieves() {
    return options.retrieve() && options.anyRag();
  }

  /** How many recorded jobs {@link #run} runs, for the step headings. */
  public int steps() {
    return steps(config, models.size(), fit, chunk);
  }

  /**
   * How many recorded jobs an evaluation of {@code config} runs with this many models, before the
   * models exist; {@code fits} says whether they span two or more token counts.
   */
  public static int steps(InfuseConfig config, int models, boolean fits, boolean chunk) {
    EvaluateConfig options = config.section(EvaluateConfig.class);
    List<RagRecipeLayer> recipes = RagRecipeLayer.of(config, options);
    String own = config.section(RagConfig.class).recipe();
    int benchmarks = options.benchmarks().size();
    long answers = 0;
    long fitted = 0;
    for (Setting setting : options.settings()) {
      int times = recipesOf(setting, recipes, options).size();
      answers += (long) benchmarks * times * (setting.trained() ? models : 1);
      fitted += setting.trained() ? (long) benchmarks * times : 0;
    }
    long retrieval = 0;
    if (options.retrieve() && options.anyRag()) {
      for (RagRecipeLayer recipe : recipes) {
        retrieval += (chunks(chunk, recipe, own) ? 2 : 1) + benchmarks;
      }
    }
    return (int) (retrieval + answers + 1 + (fits ? fitted : 0) + (options.report() ? 1 : 0));
  }

  /**
   * Whether a recipe's retrieval starts with {@code chunk}: always for a recipe other than the
   * config's own, whose chunks the caller cannot have cut.
   */
  private static boolean chunks(boolean chunk, RagRecipeLayer recipe, String ownRecipe) {
    return chunk || !recipe.name().equals(ownRecipe);
  }

  /** Runs every step; stops at the first that fails ({@link RecordedSteps.StepFailedException}). */
  public Result run(RecordedSteps steps) {
    Warehouse warehouse = Warehouse.of(steps.spark(), config);
    requireQuestions(warehouse);
    var out = steps.out();
    if (!trained.isEmpty() && !fit) {
      out.println(
          notFitted != null
              ? "evaluate: " + notFitted + " (" + models.stream().map(Model::label).toList() + ")"
              : "evaluate: no scaling fit: the models span fewer than 2 synthetic token counts ("
                  + models.stream().map(Model::label).toList()
                  + "); list models trained at several token counts to fit one");
    }

    List<String> retrieveRuns = new ArrayList<>();
    if (retrieves()) {
      String own = config.section(RagConfig.class).recipe();
      for (RagRecipeLayer recipe : recipes) {
        InfuseConfig layered = layered(steps, recipe);
        String in = recipes.size() > 1 ? ", " + recipe.label() : "";
        if (chunks(chunk, recipe, own)) {
          steps.run(
              "chunk: documents -> chunks (only new or changed documents)" + in,
              ChunkJob.NAME,
              r -> new ChunkJob(r).run(),
              recipe::applyTo);
        }
        steps.run(
            "index: chunks -> Lucene BM25 shards + dense vectors" + in,
            IndexJob.NAME,
            r -> new IndexJob(r).run(),
            recipe::applyTo);
        for (String benchmark : options.benchmarks()) {
          retrieveRuns.add(
              steps.run(
                  String.format(
                      Locale.ROOT,
                      "retrieve: %s questions -> top-%d chunks (%s, %s scope)%s",
                      benchmark,
                      layered.section(RetrieveConfig.class).k(),
                      layered.section(RetrieveConfig.class).retriever(),
                      layered.section(RetrieveConfig.class).scoping(),
                      in),
                  RetrieveJob.NAME,
                  r -> new RetrieveJob(r).run(),
                  loader -> {
                    recipe.applyTo(loader);
                    loader.setString("retrieve.benchmark", benchmark);
                  }));
        }
      }
    }

    // Keyed benchmark/setting[@recipe] for the untrained settings, benchmark/setting[@recipe]/model
    // index for the trained ones; rag settings once per recipe.
    Map<String, RecordedSteps.Step> answerSteps = new LinkedHashMap<>();
    for (String benchmark : options.benchmarks()) {
      for (Setting setting : untrained) {
        for (RagRecipeLayer recipe : recipesOf(setting)) {
          answerSteps.put(
              key(benchmark, setting, recipe), answer(steps, benchmark, setting, null, recipe));
        }
      }
      for (Setting setting : trained) {
        for (RagRecipeLayer recipe : recipesOf(setting)) {
          for (int m = 0; m < models.size(); m++) {
            answerSteps.put(
                key(benchmark, setting, recipe) + "/" + m,
                answer(steps, benchmark, setting, models.get(m), recipe));
          }
        }
      }
    }
    Map<String, String> answerRuns = runAnswers(steps, answerSteps);

    List<List<String>> pairs = comparisons(answerRuns, out);
    String scoreRun =
        steps.run(
            "score: accuracy with bootstrap CIs"
                + (pairs.isEmpty() ? "" : ", " + pairs.size() + " paired comparison(s)"),
            ScoreJob.NAME,
            r -> new ScoreJob(r).run(),
            loader ->
                loader
                    .setStrings("score.runs", List.copyOf(answerRuns.values()))
                    .setStrings("score.compare", pairs));

    List<String> fitRuns = new ArrayList<>();
    if (fit) {
      for (String benchmark : options.benchmarks()) {
        for (Setting setting : trained) {
          for (RagRecipeLayer recipe : recipesOf(setting)) {
            fitRuns.add(fitScaling(steps, benchmark, setting, recipe, answerRuns));
          }
        }
      }
    }

    String reportRun = null;
    if (options.report()) {
      List<String> scoreRuns = new ArrayList<>(List.of(scoreRun));
      scoreRuns.addAll(fitRuns);
      // Score runs the user names (a discussion's, an earlier evaluation's) join this report.
      List<String> named = config.section(ReportConfig.class).scoreRuns();
      if (!named.equals(List.of(ReportData.ALL))) {
        named.stream().filter(id -> !scoreRuns.contains(id)).forEach(scoreRuns::add);
      }
      reportRun =
          steps.run(
              "report: HTML and JSON",
              ReportJob.NAME,
              r -> new ReportJob(r).run(),
              loader ->
                  loader
                      .setStrings("report.score_runs", scoreRuns)
                      .setStrings(
                          "report.retrieve_runs",
                          retrieveRuns.isEmpty() ? List.of() : retrieveRuns));
    }
    return new Result(retrieveRuns, answerRuns, scoreRun, fitRuns, reportRun);
  }

  /** The recipes a setting runs under: see {@link #recipesOf(Setting, List, EvaluateConfig)}. */
  private List<RagRecipeLayer> recipesOf(Setting setting) {
    return recipesOf(setting, recipes, options);
  }

  /**
   * The recipes a setting runs under: none (one null) for a setting without retrieval; for a rag
   * setting the first recipe, and the others when evaluate.rag_recipe_settings lists it.
   */
  private static List<RagRecipeLayer> recipesOf(
      Setting setting, List<RagRecipeLayer> recipes, EvaluateConfig options) {
    if (!setting.rag()) {
      return java.util.Collections.singletonList(null);
    }
    return options.ragRecipeSettings().contains(setting) ? recipes : recipes.subList(0, 1);
  }

  /** An answer run's key: benchmark/setting, with @recipe for a rag setting. */
  private static String key(String benchmark, Setting setting, RagRecipeLayer recipe) {
    return benchmark + "/" + setting + (recipe == null ? "" : "@" + recipe.name());
  }

  /** The config a recipe's steps run with, to name their settings in the step titles. */
  private static InfuseConfig layered(RecordedSteps steps, RagRecipeLayer recipe) {
    ConfigLoader loader = steps.baseConfig();
    recipe.applyTo(loader);
    return loader.load();
  }

  /**
   * Runs the answer steps: those that share a model ({@link AnswerBatch#sharedModel}) in one pass
   * per model, in the order of each pass's first step, when evaluate.batch_answers is on; the
   * others one by one. Returns their run ids under the steps' keys, in the steps' order.
   */
  private Map<String, String> runAnswers(
      RecordedSteps steps, Map<String, RecordedSteps.Step> answerSteps) {
    Map<String, List<String>> passes = new LinkedHashMap<>();
    for (Map.Entry<String, RecordedSteps.Step> step : answerSteps.entrySet()) {
      String shared = options.batchAnswers() ? sharedModel(steps, step.getValue()) : null;
      passes
          .computeIfAbsent(
              shared == null ? "alone: " + step.getKey() : shared, k -> new ArrayList<>())
          .add(step.getKey());
    }
    Map<String, String> ids = new LinkedHashMap<>();
    for (List<String> pass : passes.values()) {
      List<String> runIds =
          steps.runTogether(pass.stream().map(answerSteps::get).toList(), AnswerBatch::run);
      for (int i = 0; i < pass.size(); i++) {
        ids.put(pass.get(i), runIds.get(i));
      }
    }
    Map<String, String> ordered = new LinkedHashMap<>();
    answerSteps.keySet().forEach(key -> ordered.put(key, ids.get(key)));
    return ordered;
  }

  /** The model an answer step shares, or null when its config cannot load: it runs alone. */
  private static String sharedModel(RecordedSteps steps, RecordedSteps.Step step) {
    ConfigLoader loader = steps.baseConfig();
    step.overrides().accept(loader);
    try {
      return AnswerBatch.sharedModel(loader.load(), steps.spark());
    } catch (ConfigException e) {
      return null;
    }
  }

  private RecordedSteps.Step answer(
      RecordedSteps steps, String benchmark, Setting setting, Model model, RagRecipeLayer recipe) {
    String title =
        "answer: "
            + benchmark
            + ", "
            + setting
            + (model == null
                ? ", llm.backend " + config.section(LlmConfig.class).client().backend()
                : ", model " + model.label())
            + (recipe != null && recipes.size() > 1 ? ", " + recipe.label() : "");
    return new RecordedSteps.Step(
        title,
        AnswerJob.NAME,
        r -> new AnswerJob(r).run(),
        loader -> {
          if (recipe != null) {
            recipe.applyTo(loader);
          }
          loader.setString("answer.benchmark", benchmark).setString("answer.setting", setting.id());
          if (model != null && model.endpoint() != null) {
            loader.set("answer.model_dir=null").setObject("answer.endpoint", model.endpoint());
          } else if (model != null) {
            loader.set("answer.endpoint=null").setString("answer.model_dir", model.dir());
          }
          if (setting.rag() && retrieves()) {
            InfuseConfig recipeConfig = layered(steps, recipe);
            if (recipeConfig.section(AnswerConfig.class).retriever() == null) {
              // The retriever this evaluation ran, even when retrievals holds other retrievers'
              // rows too.
              loader.setString(
                  "answer.retriever", recipeConfig.section(RetrieveConfig.class).retriever().id());
            }
          }
        });
  }

  /**
   * The configured setting pairs as answer run pairs, per benchmark, and per recipe when a rag
   * setting is in the pair (a pair of two rag settings compares them within one recipe); pairs with
   * a setting not run are skipped.
   */
  private List<List<String>> comparisons(Map<String, String> answerRuns, PrintWriter out) {
    List<List<String>> pairs = new ArrayList<>();
    Set<List<Setting>> skipped = new LinkedHashSet<>();
    for (List<Setting> pair : options.compare()) {
      if (!options.settings().containsAll(pair)) {
        skipped.add(pair);
        continue;
      }
      boolean perRecipe = pair.get(0).rag() || pair.get(1).rag();
      for (String benchmark : options.benchmarks()) {
        for (RagRecipeLayer recipe : perRecipe ? recipes : List.of(recipes.get(0))) {
          String a = runOf(answerRuns, benchmark, pair.get(0), recipe);
          String b = runOf(answerRuns, benchmark, pair.get(1), recipe);
          // A recipe after the first may run only some rag settings (rag_recipe_settings).
          if (a != null && b != null) {
            pairs.add(List.of(a, b));
          }
        }
      }
    }
    if (!skipped.isEmpty()) {
      out.println(
          "evaluate: comparisons "
              + skipped
              + " skipped: their settings are not all in evaluate.settings "
              + options.settings());
    }
    return pairs;
  }

  /**
   * The run of a setting on a benchmark, under {@code recipe} when the setting is a rag one; a
   * trained setting's is the last model's.
   */
  private String runOf(
      Map<String, String> answerRuns, String benchmark, Setting setting, RagRecipeLayer recipe) {
    String key = key(benchmark, setting, setting.rag() ? recipe : null);
    return setting.trained()
        ? answerRuns.get(key + "/" + (models.size() - 1))
        : answerRuns.get(key);
  }

  /**
   * Fits one trained setting's sweep; its rag baseline is its own recipe's for trained_rag, the
   * first recipe's for trained.
   */
  private String fitScaling(
      RecordedSteps steps,
      String benchmark,
      Setting setting,
      RagRecipeLayer recipe,
      Map<String, String> answerRuns) {
    List<String> sweep = new ArrayList<>();
    for (int m = 0; m < models.size(); m++) {
      Long tokens = models.get(m).scalingTokens(config.section(ScoreConfig.class).scalingTokens());
      if (tokens != null && tokens > 0) {
        sweep.add(answerRuns.get(key(benchmark, setting, recipe) + "/" + m));
      }
    }
    Setting baseline = options.settings().contains(Setting.RAG) ? Setting.RAG : null;
    RagRecipeLayer baselineRecipe = recipe == null ? recipes.get(0) : recipe;
    return steps.run(
        String.format(
            Locale.ROOT,
            "fit-scaling: %s, %s over %d models%s",
            benchmark,
            setting,
            sweep.size(),
            baseline == null
                ? ""
                : ", against rag"
                    + (recipes.size() > 1 ? " (" + baselineRecipe.label() + ")" : "")),
        FitScalingJob.NAME,
        r -> new FitScalingJob(r).run(),
        loader -> {
          loader
              .setString("score.scaling_benchmark", benchmark)
              .setString("score.scaling_setting", setting.id())
              .setStrings("score.scaling_runs", sweep);
          if (baseline == null) {
            loader.set("score.scaling_baseline_setting=null");
          } else {
            loader
                .setString("score.scaling_baseline_setting", baseline.id())
                .setString(
                    "score.scaling_baseline_run",
                    answerRuns.get(key(benchmark, baseline, baselineRecipe)));
          }
        });
  }

  /** Every benchmark must have questions: the answers would otherwise be empty runs. */
  private void requireQuestions(Warehouse warehouse) {
    if (!warehouse.exists("questions")) {
      throw new ConfigException(
          List.of(
              "evaluate.benchmarks: got "
                  + options.benchmarks()
                  + ", but "
                  + warehouse.root()
                  + " has no questions table; expected ingest of each benchmark first"));
    }
    Set<String> present =
        new LinkedHashSet<>(
            warehouse
                .read("questions")
                .select("benchmark")
                .distinct()
                .orderBy("benchmark")
                .as(org.apache.spark.sql.Encoders.STRING())
                .collectAsList());
    List<String> problems = new ArrayList<>();
    for (String benchmark : options.benchmarks()) {
      if (!present.contains(benchmark)) {
        problems.add(
            "evaluate.benchmarks: got "
                + benchmark
                + ", but questions holds none of its questions (it holds "
                + present
                + "); expected `infuse ingest --format "
                + benchmark
                + "` first");
      }
    }
    if (options.anyRag() && !options.retrieve() && !warehouse.exists("retrievals")) {
      problems.add(
          "evaluate.retrieve: got false with settings "
              + options.settings()
              + ", but there is no retrievals"
              + " table; expected true, or retrieve to have run");
    }
    if (!problems.isEmpty()) {
      throw new ConfigException(problems);
    }
  }

  /**
   * Each answer run's setting as the summary shows it: a rag setting with its recipe, {@code rag
   * [entigraph]}, when the evaluation ran more than one recipe or one that is not the default.
   */
  private static Map<String, String> shownSettings(Warehouse warehouse, Evaluation.Result result) {
    Map<String, String> recipeOf = new LinkedHashMap<>();
    Set<String> recipes = new LinkedHashSet<>();
    for (Row r :
        warehouse
            .read("predictions")
            .filter(
                col("run_id")
                    .isin(result.answerRuns().values().toArray())
                    .and(col("rag_recipe").isNotNull()))
            .select("run_id", "setting", "rag_recipe")
            .distinct()
            .collectAsList()) {
      recipeOf.put(r.getString(0), r.getString(1) + " [" + r.getString(2) + "]");
      recipes.add(r.getString(2));
    }
    boolean labelled = recipes.size() > 1 || !recipes.equals(Set.of(RagConfig.DEFAULT));
    return labelled && !recipes.isEmpty() ? recipeOf : Map.of();
  }

  /** The headline numbers: accuracy per benchmark and setting, the comparisons and the fits. */
  public static void printSummary(Warehouse warehouse, Evaluation.Result result, PrintWriter out) {
    out.println();
    out.println("Evaluation (score run " + result.scoreRun() + "):");
    Map<String, String> shown = shownSettings(warehouse, result);
    for (Row r :
        warehouse
            .read("scores")
            .filter(
                col("score_run_id")
                    .equalTo(result.scoreRun())
                    .and(col("subset").equalTo("all"))
                    .and(col("metric").equalTo("accuracy")))
            .orderBy("benchmark", "setting", "synthetic_tokens", "run_id")
            .collectAsList()) {
      Object unique = r.getAs("unique_synthetic_tokens");
      Object tokens = r.getAs("synthetic_tokens");
      out.printf(
          Locale.ROOT,
          "  %-13s %-17s %-23s accuracy %.4f [%.4f, %.4f] n=%d%n",
          r.<String>getAs("benchmark"),
          shown.getOrDefault(r.<String>getAs("run_id"), r.<String>getAs("setting")),
          unique != null
              ? String.format(Locale.ROOT, "%,d unique tokens", (Long) unique)
              : tokens == null ? "" : String.format(Locale.ROOT, "%,d tokens", (Long) tokens),
          r.<Double>getAs("value"),
          r.<Double>getAs("ci_low"),
          r.<Double>getAs("ci_high"),
          r.<Long>getAs("n"));
    }
    if (warehouse.exists("score_comparisons")) {
      for (Row r :
          warehouse
              .read("score_comparisons")
              .filter(
                  col("score_run_id")
                      .equalTo(result.scoreRun())
                      .and(col("subset").equalTo("all"))
                      .and(col("metric").equalTo("accuracy")))
              .orderBy("benchmark", "setting_a", "setting_b")
              .collectAsList()) {
        out.printf(
            Locale.ROOT,
            "  %-13s %s - %s: %+.4f [%.4f, %.4f] p=%.4f n=%d%n",
            r.<String>getAs("benchmark"),
            shown.getOrDefault(r.<String>getAs("run_id_b"), r.<String>getAs("setting_b")),
            shown.getOrDefault(r.<String>getAs("run_id_a"), r.<String>getAs("setting_a")),
            r.<Double>getAs("diff"),
            r.<Double>getAs("ci_low"),
            r.<Double>getAs("ci_high"),
            r.<Double>getAs("p_value"),
            r.<Long>getAs("n"));
      }
    }
    if (!result.fitRuns().isEmpty()) {
      for (Row r :
          warehouse
              .read("scaling_fits")
              .filter(col("score_run_id").isin(result.fitRuns().toArray()))
              .orderBy("benchmark", "setting")
              .collectAsList()) {
        Object crossover = r.getAs("crossover_tokens");
        out.printf(
            Locale.ROOT,
            "  %-13s %-12s fit%s: %s = %.4f + %.4f ln(tokens), R^2 %.3f over %d models; crosses rag: %s%n",
            r.<String>getAs("benchmark"),
            r.<String>getAs("setting"),
            " ("
                + (r.getAs("generator") == null ? "" : r.<String>getAs("generator") + ", ")
                + FitScalingJob.axisName(r.getAs("token_count"), r.getAs("count_tokenizer"))
                + ")",
            r.<String>getAs("metric"),
            r.<Double>getAs("intercept"),
            r.<Double>getAs("slope"),
            r.<Double>getAs("r2"),
            r.<Integer>getAs("n_points"),
            crossover == null
                ? "no"
                : String.format(Locale.ROOT, "at %.4g tokens", (Double) crossover));
      }
    }
    out.flush();
  }
}
