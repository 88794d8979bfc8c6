package dev.infuse.jobs.facts;

import static org.apache.spark.sql.functions.array_contains;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.sum;

import dev.infuse.jobs.answer.AnswerJob;
import dev.infuse.jobs.chunk.ChunkJob;
import dev.infuse.jobs.config.ConfigException;
import dev.infuse.jobs.config.ConfigLoader;
import dev.infuse.jobs.config.InfuseConfig;
import dev.infuse.jobs.config.InfuseHome;
import dev.infuse.jobs.generate.GenDocsJob;
import dev.infuse.jobs.generate.GenQaJob;
import dev.infuse.jobs.ingest.IngestJob;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.jobs.report.ReportJob;
import dev.infuse.jobs.retrieve.IndexJob;
import dev.infuse.jobs.retrieve.RetrieveJob;
import dev.infuse.jobs.run.RecordedSteps;
import dev.infuse.jobs.run.StepFailedException;
import dev.infuse.jobs.score.FitScalingJob;
import dev.infuse.jobs.score.ScoreJob;
import dev.infuse.jobs.shards.BuildShardsJob;
import dev.infuse.jobs.shards.MixtureFiles;
import dev.infuse.jobs.train.TrainConfig;
import dev.infuse.jobs.train.TrainJob;
import dev.infuse.udfs.facts.FactsCorpus;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;

/**
 * The synthetic-facts experiment as a chain of the existing jobs (docs/EXPERIMENTS.md): ingest the
 * corpus of {@code make-facts}; gen-qa (extractive, per document) for the trained people only;
 * gen-docs rephrases for everyone; one shard build per mixture and token target and one model
 * trained from scratch on each; RAG with the model-free reader (chunk, index, retrieve, answer);
 * each model closed book by log-likelihood; one score run (per subset: held_out, trained) with the
 * mixtures compared pairwise at each target; a scaling fit per mixture and subset; the report.
 *
 * <p>It sets only the keys that tie the steps together and those that make it this experiment
 * (listed in {@link #settings}); the model's shape, the mixtures and the targets come from the
 * config ({@code conf/experiments/facts.yaml}).
 */
public final class FactsExperiment {
  /** The scores subsets the experiment reports, held-out people first. */
  public static final List<String> SUBSETS = List.of(FactsCorpus.HELD_OUT, FactsCorpus.TRAINED);

  /** The benchmark the corpus is ingested as. */
  static final String BENCHMARK = "quality";

  /** Four options: a guess is right one time in four. */
  public static final double CHANCE = 0.25;

  /** One shard build and the model trained on it. */
  record Build(String mixture, Path mixtureFile, long tokens, String shards, String modelDir) {
    String name() {
      return mixture + "-" + compact(tokens);
    }
  }

  private final Supplier<ConfigLoader> userConfig;
  private final InfuseConfig config;
  private final FactsConfig facts;
  private final Path input;
  private final List<Build> builds = new ArrayList<>();
  private final List<String> mixtureNames = new ArrayList<>();

  /**
   * Plans the experiment over the user's config; fails before any job when the corpus or a mixture
   * file is missing or invalid.
   *
   * @throws ConfigException when the config cannot be used
   */
  public FactsExperiment(Supplier<ConfigLoader> userConfig) {
    this.userConfig = userConfig;
    InfuseConfig base = userConfig.get().load();
    this.facts = base.section(FactsConfig.class);
    List<String> problems = new ArrayList<>();
    this.input = InfuseHome.resolve(facts.input());
    if (!Files.isRegularFile(input)) {
      problems.add(
          "facts.input: got "
              + input
              + ", expected the facts corpus written by `infuse make-facts --out DIR` (DIR/"
              + FactsCorpus.FILE_NAME
              + "; run from the repository root, or set INFUSE_HOME)");
    }
    for (int i = 0; i < facts.mixtures().size(); i++) {
      Path file = InfuseHome.resolve(facts.mixtures().get(i));
      String name;
      try {
        name = MixtureFiles.read(file).name();
      } catch (IllegalArgumentException | java.io.UncheckedIOException e) {
        problems.add(
            "facts.mixtures["
                + i
                + "]: got "
                + facts.mixtures().get(i)
                + ", expected a valid mixture file: "
                + e.getMessage());
        continue;
      }
      if (mixtureNames.contains(name)) {
        problems.add(
            "facts.mixtures["
                + i
                + "]: mixture name "
                + name
                + " a second time, expected mixtures with distinct names");
        continue;
      }
      mixtureNames.add(name);
      for (long tokens : facts.tokenTargets()) {
        String build = name + "-" + compact(tokens);
        builds.add(
            new Build(
                name,
                file,
                tokens,
                facts.output() + "/shards/" + build,
                facts.output() + "/models/" + build));
      }
    }
    if (!problems.isEmpty()) {
      throw new ConfigException(problems);
    }
    this.config = config().load();
  }

  /**
   * The keys that make the chain this experiment, over the user's config. Each one's reason is next
   * to it.
   */
  private List<String> settings() {
    return List.of(
        "ingest.format=quality",
        // One QA generation per biography: a biography is a single short chunk, and gen-qa per
        // document needs no chunk step before it.
        "gen_qa.unit=document",
        // Rephrases only: entity and focal documents of a six-sentence biography would add
        // little but cost, and focal rewrites read synthetic QA, which held-out people lack.
        "gen_docs.kinds=[rephrase]",
        // The trained people's QA is trained on by design (that is the experiment), and every
        // question is templated: decontaminating against the questions would cut the facts the
        // experiment measures.
        "shards.decontamination.enabled=false",
        "shards.sequence_length="
            + userConfig.get().load().section(TrainConfig.class).sequenceLength(),
        "answer.benchmark=" + BENCHMARK,
        "retrieve.benchmark=" + BENCHMARK,
        "score.scaling_benchmark=" + BENCHMARK,
        "score.scaling_setting=trained",
        // Two targets cut one mixture at two seen counts; the unique count is the same for both
        // when the smaller target already holds every distinct text (QA only), so fit on seen.
        "score.scaling_tokens=seen");
  }

  /** A fresh loader of the user's config with the experiment's keys on top. */
  public ConfigLoader config() {
    ConfigLoader loader = userConfig.get();
    for (String setting : settings()) {
      loader.set(setting);
    }
    loader.setString("ingest.input", input.toString());
    return loader;
  }

  /** Whether the builds span two or more token targets, so each mixture gets a scaling fit. */
  private boolean fits() {
    return facts.tokenTargets().size() >= 2;
  }

  /** How many numbered steps the experiment runs: known from the config alone. */
  public int steps() {
    int models = builds.size();
    return 3
        + 2 * models
        + (facts.rag() ? 4 : 0)
        + models
        + 1
        + (fits() ? mixtureNames.size() * SUBSETS.size() : 0)
        + (facts.report() ? 1 : 0);
  }

  /** The run ids of one experiment. */
  public record Result(
      String scoreRun,
      String ragRun,
      Map<String, String> modelRuns,
      List<String> fitRuns,
      String reportRun) {}

  /**
   * Runs every step; stops at the first that fails ({@link StepFailedException}).
   *
   * @throws ConfigException when the warehouse holds other documents or the corpus has no split
   */
  public Result run(RecordedSteps steps) {
    PrintWriter out = steps.out();
    Warehouse warehouse = Warehouse.of(steps.spark(), config);
    steps.run(
        "ingest: " + input.getFileName() + " -> documents, questions (QuALITY format)",
        IngestJob.NAME,
        run -> new IngestJob(run).run());
    List<String> trained = trainedDocuments(warehouse);
    steps.run(
        String.format(
            Locale.ROOT,
            "gen-qa: the %d trained people's biographies -> synthetic_qa (per document)",
            trained.size()),
        GenQaJob.NAME,
        run -> new GenQaJob(run).run(),
        loader -> loader.set("gen_qa.max_units=" + trained.size()));
    requireQaOfTrainedOnly(warehouse, trained, out);
    steps.run(
        "gen-docs: every biography -> synthetic_docs (rephrases)",
        GenDocsJob.NAME,
        run -> new GenDocsJob(run).run());
    for (Build build : builds) {
      steps.run(
          String.format(
              Locale.ROOT,
              "build-shards: %s at %,d tokens -> %s",
              build.mixture(),
              build.tokens(),
              build.shards()),
          BuildShardsJob.NAME,
          run -> new BuildShardsJob(run).run(),
          loader ->
              loader
                  .setString("shards.mixture", build.mixtureFile().toString())
                  .setString("shards.output", build.shards())
                  .set("shards.total_tokens=" + build.tokens()));
    }
    int batch = config.section(TrainConfig.class).training().batchSize();
    for (Build build : builds) {
      train(steps, warehouse, build, batch);
    }

    Map<String, String> answerRuns = new LinkedHashMap<>();
    String ragRun = null;
    String retrieveRun = null;
    if (facts.rag()) {
      steps.run("chunk: documents -> chunks", ChunkJob.NAME, run -> new ChunkJob(run).run());
      steps.run(
          "index: chunks -> Lucene BM25 shards + dense vectors",
          IndexJob.NAME,
          run -> new IndexJob(run).run());
      retrieveRun =
          steps.run(
              "retrieve: each question -> chunks of its person's biography (oracle document"
                  + " scope)",
              RetrieveJob.NAME,
              run -> new RetrieveJob(run).run());
      ragRun =
          steps.run(
              "answer: rag, the model-free reader (the option closest to the retrieved chunks)",
              AnswerJob.NAME,
              run -> new AnswerJob(run).run(),
              loader -> loader.setString("answer.setting", "rag"));
      answerRuns.put("rag", ragRun);
    }
    Map<String, String> modelRuns = new LinkedHashMap<>();
    for (Build build : builds) {
      String run =
          steps.run(
              "answer: trained (closed book, log-likelihood of each option), model "
                  + build.modelDir(),
              AnswerJob.NAME,
              r -> new AnswerJob(r).run(),
              loader ->
                  loader
                      .setString("answer.setting", "trained")
                      .set("answer.endpoint=null")
                      .setString("answer.model_dir", build.modelDir()));
      modelRuns.put(build.name(), run);
      answerRuns.put(build.name(), run);
    }

    List<List<String>> pairs = new ArrayList<>();
    for (long tokens : facts.tokenTargets()) {
      for (int a = 0; a < mixtureNames.size(); a++) {
        for (int b = a + 1; b < mixtureNames.size(); b++) {
          pairs.add(
              List.of(
                  modelRuns.get(mixtureNames.get(a) + "-" + compact(tokens)),
                  modelRuns.get(mixtureNames.get(b) + "-" + compact(tokens))));
        }
      }
    }
    String scoreRun =
        steps.run(
            "score: accuracy per subset (all, held_out, trained) with bootstrap CIs, "
                + pairs.size()
                + " paired comparison(s) of mixtures",
            ScoreJob.NAME,
            run -> new ScoreJob(run).run(),
            loader ->
                loader
                    .setStrings("score.runs", List.copyOf(answerRuns.values()))
                    .setStrings("score.compare", pairs));

    List<String> fitRuns = new ArrayList<>();
    if (fits()) {
      for (String mixture : mixtureNames) {
        List<String> sweep =
            builds.stream()
                .filter(b -> b.mixture().equals(mixture))
                .map(b -> modelRuns.get(b.name()))
                .toList();
        for (String subset : SUBSETS) {
          String baseline = ragRun;
          fitRuns.add(
              steps.run(
                  String.format(
                      Locale.ROOT,
                      "fit-scaling: %s over %d models, subset %s%s",
                      mixture,
                      sweep.size(),
                      subset,
                      baseline == null ? "" : ", against rag"),
                  FitScalingJob.NAME,
                  run -> new FitScalingJob(run).run(),
                  loader -> {
                    loader
                        .setStrings("score.scaling_runs", sweep)
                        .setString("score.scaling_subset", subset)
                        .setString("score.scaling_label", mixture);
                    if (baseline == null) {
                      loader.set("score.scaling_baseline_setting=null");
                    } else {
                      loader
                          .setString("score.scaling_baseline_setting", "rag")
                          .setString("score.scaling_baseline_run", baseline);
                    }
                  }));
        }
      }
    }
    String reportRun = null;
    if (facts.report()) {
      List<String> scoreRuns = new ArrayList<>(List.of(scoreRun));
      scoreRuns.addAll(fitRuns);
      String retrieved = retrieveRun;
      reportRun =
          steps.run(
              "report: HTML and JSON",
              ReportJob.NAME,
              run -> new ReportJob(run).run(),
              loader -> {
                loader.setStrings("report.score_runs", scoreRuns);
                if (retrieved != null) {
                  loader.setStrings("report.retrieve_runs", List.of(retrieved));
                }
              });
    }
    return new Result(scoreRun, ragRun, modelRuns, fitRuns, reportRun);
  }

  /**
   * Trains one model from scratch on a build for {@code facts.passes} passes. A step that diverges
   * (a non-finite loss or gradient, seen once under heavy CPU load) fails the run; it is retried
   * once, resuming from the last checkpoint, before the chain fails.
   */
  private void train(RecordedSteps steps, Warehouse warehouse, Build build, int batch) {
    String shards = TrainJob.modelDir(config.warehouse(), build.shards()).toString();
    long sequences = sequences(warehouse, shards);
    int trainSteps = (int) Math.max(1, (facts.passes() * sequences + batch - 1) / batch);
    String title =
        String.format(
            Locale.ROOT,
            "train: %s from scratch, %d steps (%d passes over %d sequences) -> %s",
            build.name(),
            trainSteps,
            facts.passes(),
            sequences,
            build.modelDir());
    java.util.function.Consumer<ConfigLoader> overrides =
        loader ->
            loader
                .setString("train.shards", shards)
                .setString("train.model_dir", build.modelDir())
                .set("train.init_from=null")
                .set("train.steps=" + trainSteps);
    try {
      steps.run(title, TrainJob.NAME, run -> new TrainJob(run).run(), overrides);
    } catch (StepFailedException e) {
      steps
          .out()
          .println(
              "facts-experiment: "
                  + title
                  + " failed (its error is on stderr above and in the runs table);"
                  + " retrying once from its last checkpoint");
      steps.retry(title, TrainJob.NAME, run -> new TrainJob(run).run(), overrides);
    }
  }

  /** Parquet sequences of a build, as its shard_manifest rows count them. */
  private static long sequences(Warehouse warehouse, String shards) {
    Row row =
        warehouse
            .read("shard_manifest")
            .filter(col("format").equalTo("parquet").and(col("output").equalTo("file:" + shards)))
            .agg(sum("sequences"))
            .head();
    if (row.isNullAt(0)) {
      throw new IllegalStateException("shard_manifest has no parquet rows for file:" + shards);
    }
    return row.getLong(0);
  }

  /**
   * The trained people's documents, which must be the first ones by id (make-facts numbers them
   * first), so that gen-qa's {@code max_units} in id order takes exactly them; and the warehouse
   * must hold the corpus alone.
   */
  private static List<String> trainedDocuments(Warehouse warehouse) {
    var questions = warehouse.read("questions").filter(col("benchmark").equalTo(BENCHMARK));
    List<String> trained =
        questions
            .filter(array_contains(col("subsets"), FactsCorpus.TRAINED))
            .select("doc_id")
            .distinct()
            .orderBy("doc_id")
            .as(Encoders.STRING())
            .collectAsList();
    long heldOut =
        questions
            .filter(array_contains(col("subsets"), FactsCorpus.HELD_OUT))
            .select("doc_id")
            .distinct()
            .count();
    List<String> documents =
        warehouse
            .read("documents")
            .select("doc_id")
            .orderBy("doc_id")
            .as(Encoders.STRING())
            .collectAsList();
    List<String> problems = new ArrayList<>();
    if (trained.isEmpty() || heldOut == 0) {
      problems.add(
          "facts.input: got "
              + trained.size()
              + " trained and "
              + heldOut
              + " held_out people, expected both subsets (a corpus written by make-facts, 2 or"
              + " more people)");
    } else if (documents.size() != trained.size() + heldOut) {
      problems.add(
          "warehouse: got "
              + documents.size()
              + " documents for "
              + (trained.size() + heldOut)
              + " people, expected a warehouse holding the facts corpus alone (--warehouse DIR of"
              + " its own)");
    } else if (!documents.subList(0, trained.size()).equals(trained)) {
      problems.add(
          "facts.input: the trained people's documents do not come first by id, expected"
              + " make-facts' numbering (trained people first)");
    }
    if (!problems.isEmpty()) {
      throw new ConfigException(problems);
    }
    return trained;
  }

  /** Every synthetic QA pair must come from a trained person's biography. */
  private static void requireQaOfTrainedOnly(
      Warehouse warehouse, List<String> trained, PrintWriter out) {
    List<Row> byDocument = warehouse.read("synthetic_qa").groupBy("doc_id").count().collectAsList();
    long pairs = 0;
    for (Row r : byDocument) {
      if (!trained.contains(r.getString(0))) {
        throw new IllegalStateException(
            "synthetic_qa holds pairs of " + r.getString(0) + ", which is not a trained person");
      }
      pairs += r.getLong(1);
    }
    out.printf(
        Locale.ROOT,
        "facts-experiment: %,d synthetic QA pairs from %d of the %d trained people, none from"
            + " held-out people%n",
        pairs,
        byDocument.size(),
        trained.size());
    out.flush();
  }

  /** 20000 -> 20k, 1500000 -> 1500k, 999 -> 999. */
  static String compact(long tokens) {
    return tokens % 1000 == 0 ? tokens / 1000 + "k" : Long.toString(tokens);
  }

  /**
   * The experiment's table: accuracy per setting, mixture, target and subset with its CI and n,
   * against chance; the paired comparisons of mixtures per subset; the fits.
   */
  public void printSummary(Warehouse warehouse, Result result, PrintWriter out) {
    Map<String, String> label = new LinkedHashMap<>();
    if (result.ragRun() != null) {
      label.put(result.ragRun(), "rag (model-free reader)");
    }
    result.modelRuns().forEach((name, run) -> label.put(run, "trained " + name));
    out.println();
    out.printf(
        Locale.ROOT,
        "Facts experiment (score run %s), accuracy with 95%% CI; chance %.2f:%n",
        result.scoreRun(),
        CHANCE);
    List<Row> scores =
        warehouse
            .read("scores")
            .filter(
                col("score_run_id")
                    .equalTo(result.scoreRun())
                    .and(col("metric").equalTo("accuracy"))
                    .and(col("subset").isin(SUBSETS.toArray())))
            .collectAsList();
    for (String subset : SUBSETS) {
      for (Map.Entry<String, String> run : label.entrySet()) {
        for (Row r : scores) {
          if (r.<String>getAs("run_id").equals(run.getKey())
              && r.<String>getAs("subset").equals(subset)) {
            out.printf(
                Locale.ROOT,
                "  %-9s %-34s %.3f [%.3f, %.3f] n=%d%n",
                subset,
                run.getValue(),
                r.<Double>getAs("value"),
                r.<Double>getAs("ci_low"),
                r.<Double>getAs("ci_high"),
                r.<Long>getAs("n"));
          }
        }
      }
    }
    if (warehouse.exists("score_comparisons")) {
      out.println("Paired comparisons (b - a):");
      for (Row r :
          warehouse
              .read("score_comparisons")
              .filter(
                  col("score_run_id")
                      .equalTo(result.scoreRun())
                      .and(col("metric").equalTo("accuracy"))
                      .and(col("subset").isin(SUBSETS.toArray())))
              .orderBy("subset", "run_id_a", "run_id_b")
              .collectAsList()) {
        out.printf(
            Locale.ROOT,
            "  %-9s %s - %s: %+.3f [%.3f, %.3f] p=%.4f n=%d%n",
            r.<String>getAs("subset"),
            label.getOrDefault(r.<String>getAs("run_id_b"), r.<String>getAs("run_id_b")),
            label.getOrDefault(r.<String>getAs("run_id_a"), r.<String>getAs("run_id_a")),
            r.<Double>getAs("diff"),
            r.<Double>getAs("ci_low"),
            r.<Double>getAs("ci_high"),
            r.<Double>getAs("p_value"),
            r.<Long>getAs("n"));
      }
    }
    if (!result.fitRuns().isEmpty()) {
      out.println("Scaling fits, accuracy = a + b ln(seen synthetic tokens):");
      for (Row r :
          warehouse
              .read("scaling_fits")
              .filter(col("score_run_id").isin(result.fitRuns().toArray()))
              .orderBy("subset", "label")
              .collectAsList()) {
        Object crossover = r.getAs("crossover_tokens");
        out.printf(
            Locale.ROOT,
            "  %-9s %-16s a %.4f b %+.4f over %d models; crosses rag: %s%n",
            r.<String>getAs("subset"),
            r.<String>getAs("label"),
            r.<Double>getAs("intercept"),
            r.<Double>getAs("slope"),
            r.<Integer>getAs("n_points"),
            crossover == null
                ? "no"
                : String.format(Locale.ROOT, "at %.4g tokens", (Double) crossover));
      }
    }
    out.flush();
  }
}
