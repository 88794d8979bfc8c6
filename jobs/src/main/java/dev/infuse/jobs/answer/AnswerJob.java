package dev.infuse.jobs.answer;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.collect_list;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.sort_array;
import static org.apache.spark.sql.functions.struct;

import dev.infuse.jobs.behavior.BehaviorAnswerJob;
import dev.infuse.jobs.chunk.ChunkJob;
import dev.infuse.jobs.chunk.RagConfig;
import dev.infuse.jobs.config.ConfigException;
import dev.infuse.jobs.config.ConfigJson;
import dev.infuse.jobs.config.InfuseConfig;
import dev.infuse.jobs.contract.Contract;
import dev.infuse.jobs.contract.Contracts;
import dev.infuse.jobs.generate.PromptLibrary;
import dev.infuse.jobs.io.Quarantine;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.jobs.io.WriteResult;
import dev.infuse.jobs.llm.LlmCallRunner;
import dev.infuse.jobs.llm.LlmConfig;
import dev.infuse.jobs.llm.LlmFailures;
import dev.infuse.jobs.run.JobRun;
import dev.infuse.jobs.run.RunCounts;
import dev.infuse.jobs.train.TrainJob;
import dev.infuse.udfs.answer.PromptFormat;
import dev.infuse.udfs.answer.PromptFormats;
import dev.infuse.udfs.answer.Setting;
import dev.infuse.udfs.embed.EmbedderSpec;
import dev.infuse.udfs.embed.EmbeddingModelFiles;
import dev.infuse.udfs.llm.LlmBackend;
import dev.infuse.udfs.lm.LmModelSpec;
import dev.infuse.udfs.lm.ModelDirectory;
import dev.infuse.udfs.retrieve.ChunkOrder;
import dev.infuse.udfs.retrieve.Retriever;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.storage.StorageLevel;

/**
 * {@code answer}: one backend and model answers one benchmark's questions in one setting, and each
 * answer is written to {@code predictions} with its prompt version, raw output, extracted answer
 * and whether it is right.
 *
 * <p>Settings: {@code closed_book} (the question alone), {@code rag} (the top-k chunks of {@code
 * retrievals} in context, in {@code answer.chunk_order}), {@code trained} and {@code trained_rag}
 * (the same, answered by the model directory of {@code train} through the djl backend).
 *
 * <p>Modes: {@code generate} asks the LLM client layer (cached in {@code llm_calls}: a rerun sends
 * no request that already succeeded) and extracts the answer; {@code loglikelihood} scores every
 * option on the executors (djl); {@code embedding}, the model-free default, picks the option most
 * similar to the context. {@code auto} picks embedding for the extractive backend, loglikelihood
 * for djl on choice questions, generate otherwise.
 *
 * <p>A question that cannot be answered (rag without retrievals for it, a failed LLM call, a mode
 * that does not fit it) goes to quarantine with the reason; read = predicted + quarantined. An
 * answer that cannot be parsed is a prediction with a null answer, counted wrong.
 */
public final class AnswerJob {
  public static final String NAME = "answer";
  public static final String TABLE = "predictions";

  private final JobRun run;
  private final AnswerConfig options;

  public AnswerJob(JobRun run) {
    this.run = run;
    this.options = run.config().section(AnswerConfig.class);
  }

  /** What answers, resolved from the config before any task runs. */
  record Plan(
      PromptFormat format,
      Setting setting,
      AnswerMode mode,
      LlmBackend backend,
      String model,
      Path modelDir,
      TrainedOn trainedOn,
      LlmConfig llm,
      Integer bosTokenId) {}

  /** The answered questions, and what the LLM layer did when the mode called it. */
  private record Answered(Dataset<Row> rows, LlmCallRunner.Outcome llm) {}

  public RunCounts run() {
    if (options.mode() == AnswerMode.BEHAVIOR) {
      return new BehaviorAnswerJob(run).run();
    }
    Warehouse warehouse = run.warehouse();
    Plan plan = plan(run.config(), warehouse);
    Retriever retriever = plan.setting().rag() ? retriever(warehouse) : null;
    Dataset<Row> inputs =
        inputs(warehouse, plan, retriever).persist(StorageLevel.MEMORY_AND_DISK());
    try {
      PredictionRows rows =
          new PredictionRows(
              run.runId(),
              plan.setting().id(),
              plan.backend().id(),
              plan.model(),
              plan.mode().id(),
              retriever == null ? null : retriever.id(),
              plan.trainedOn(),
              ConfigJson.hash(run.config()));
      Dataset<Row> missingContext =
          plan.setting().rag() ? inputs.filter(col("passages").isNull()) : inputs.limit(0);
      Dataset<Row> answerable =
          plan.setting().rag() ? inputs.filter(col("passages").isNotNull()) : inputs;
      Answered answers =
          switch (plan.mode()) {
            case EMBEDDING ->
                new Answered(
                    run.spark()
                        .createDataFrame(
                            spread(answerable)
                                .javaRDD()
                                .mapPartitions(
                                    new EmbeddingAnswers(
                                        embedderSpec(),
                                        rows,
                                        plan.format().kind() == PromptFormat.Kind.LABEL)),
                            PredictionRows.SCHEMA),
                    null);
            case LOGLIKELIHOOD ->
                new Answered(
                    run.spark()
                        .createDataFrame(
                            spread(answerable)
                                .javaRDD()
                                .mapPartitions(
                                    new LoglikelihoodAnswers(
                                        new LmModelSpec(
                                            plan.modelDir().toString(),
                                            plan.llm().client().device()),
                                        plan.format(),
                                        rows,
                                        Math.max(1, plan.llm().client().maxConcurrency()),
                                        plan.bosTokenId())),
                            PredictionRows.SCHEMA),
                    null);
            default -> generate(answerable, plan, rows);
          };
      Dataset<Row> answered = answers.rows().persist(StorageLevel.MEMORY_AND_DISK());
      String noRetrievals =
          "no retrievals for this question from retriever "
              + retriever
              + " (or their chunks are gone);"
              + " run retrieve for benchmark "
              + plan.format().benchmark();
      Dataset<Row> rejectedContext =
          missingContext.select(
              col("question_id"), col("question").as("payload"), lit(noRetrievals).as("reason"));
      Dataset<Row> unanswerable =
          answered
              .filter(col("reason").isNotNull())
              .select("question_id", "payload", "reason")
              .unionByName(rejectedContext);
      Dataset<Row> rejected =
          Quarantine.deadLetters(
              unanswerable, lit("questions"), col("question_id"), col("payload"), col("reason"));
      Contract contract = Contracts.load(TABLE);
      Dataset<Row> predictions =
          answered
              .filter(col("reason").isNull())
              .withColumn(
                  "rag_recipe", plan.setting().rag() ? lit(ragRecipe()) : lit(null).cast("string"))
              .select(contract.columnNames().stream().map(c -> col(c)).toArray(Column[]::new));

      long read = inputs.count();
      Row tally =
          predictions
              .selectExpr(
                  "count(*)",
                  "coalesce(sum(CASE WHEN correct THEN 1 ELSE 0 END), 0)",
                  "coalesce(sum(CASE WHEN correct IS NOT NULL THEN 1 ELSE 0 END), 0)",
                  "coalesce(sum(CASE WHEN parsed_answer IS NULL THEN 1 ELSE 0 END), 0)")
              .head();
      long predicted = tally.getLong(0);
      long quarantined = rejected.count();
      // Every row belongs to this new run: nothing to compare with what the table holds.
      WriteResult write = warehouse.upsertFresh(contract, predictions);
      WriteResult quarantineWrite = run.quarantine(rejected, quarantined);
      answered.unpersist();

      Map<String, Long> details = new LinkedHashMap<>();
      if (answers.llm() != null) {
        details.putAll(LlmCallRunner.details(answers.llm()));
      }
      details.put("questions", read);
      details.put("predictions", predicted);
      details.put("correct", tally.getLong(1));
      details.put("judged", tally.getLong(2));
      details.put("unparseable", tally.getLong(3));
      if (plan.mode() == AnswerMode.LOGLIKELIHOOD) {
        // Which BOS convention scored the options (answer.add_bos resolved on the model's
        // tokenizer), for the report's run info.
        details.put("loglikelihood.add_bos", plan.bosTokenId() == null ? 0L : 1L);
        if (plan.bosTokenId() != null) {
          details.put("loglikelihood.bos_token_id", (long) plan.bosTokenId());
        }
      }
      details.put(TABLE + ".inserted", write.inserted());
      details.put("quarantine.inserted", quarantineWrite.inserted());
      RunCounts counts = new RunCounts(read, predicted, quarantined, details);
      print(plan, retriever, counts, write);
      return LlmFailures.check(
          NAME, "LLM calls", answers.llm(), plan.llm().maxFailureFraction(), counts);
    } finally {
      inputs.unpersist();
    }
  }

  private Answered generate(Dataset<Row> answerable, Plan plan, PredictionRows rows) {
    GeneratedAnswers generated =
        new GeneratedAnswers(
            plan.format(),
            fewShotReader(plan),
            options.chainOfThought(),
            plan.backend().id(),
            plan.llm().client().model(),
            options.maxTokens(),
            options.temperature(),
            run.config().run().seed(),
            rows);
    Dataset<Row> requests =
        run.spark()
            .createDataFrame(
                answerable.javaRDD().map(generated::request), GeneratedAnswers.REQUESTS)
            .persist(StorageLevel.MEMORY_AND_DISK());
    LlmCallRunner runner = new LlmCallRunner(run, plan.llm());
    LlmCallRunner.Outcome outcome = runner.call(requests);
    run.out()
        .printf(
            Locale.ROOT,
            "  llm %s: %d request(s), %d cached, %d called, %d failed, %d deferred by budget;"
                + " %d tokens in, %d out%n",
            plan.backend(),
            outcome.requested(),
            outcome.cached(),
            outcome.called(),
            outcome.failed(),
            outcome.deferredByBudget(),
            outcome.tokensIn(),
            outcome.tokensOut());
    Dataset<Row> joined = answerable.join(runner.responses(requests), seq(List.of("question_id")));
    return new Answered(
        run.spark().createDataFrame(joined.javaRDD().map(generated::parse), PredictionRows.SCHEMA),
        outcome);
  }

  /**
   * The questions to answer, with their document's title and text and, for rag, the retrieved
   * chunks in prompt order ({@code passages} and {@code chunk_ids} null when the question has
   * none).
   */
  private Dataset<Row> inputs(Warehouse warehouse, Plan plan, Retriever retriever) {
    Dataset<Row> questions =
        warehouse.read("questions").filter(col("benchmark").equalTo(plan.format().benchmark()));
    if (options.split() != null) {
      questions = questions.filter(col("split").equalTo(options.split()));
    }
    questions = questions.orderBy("question_id");
    if (options.maxQuestions() > 0) {
      questions = questions.limit(options.maxQuestions());
    }
    Dataset<Row> withDocs =
        warehouse.exists("documents")
            ? questions.join(
                warehouse
                    .read("documents")
                    .select(col("doc_id"), col("title"), col("text").as("doc_text")),
                seq(List.of("doc_id")),
                "left")
            : questions
                .withColumn("title", lit(null).cast("string"))
                .withColumn("doc_text", lit(null).cast("string"));
    Dataset<Row> withContext;
    if (plan.setting().rag()) {
      Dataset<Row> retrieved =
          warehouse
              .read("retrievals")
              .filter(
                  col("rag_recipe")
                      .equalTo(ragRecipe())
                      .and(col("retriever").equalTo(retriever.id()))
                      .and(col("rank").leq(options.k())))
              .join(
                  warehouse
                      .read("chunks")
                      .filter(col("rag_recipe").equalTo(ragRecipe()))
                      // What was indexed is what the reader sees: the metadata prefix, then text.
                      .select(col("chunk_id"), ChunkJob.indexedText().as("chunk_text")),
                  "chunk_id")
              .groupBy("question_id")
              .agg(
                  sort_array(
                          collect_list(struct(col("rank"), col("chunk_id"), col("chunk_text"))),
                          options.chunkOrder() == ChunkOrder.BEST_FIRST)
                      .as("ctx"))
              .select(
                  col("question_id"),
                  col("ctx.chunk_text").as("passages"),
                  col("ctx.chunk_id").as("chunk_ids"));
      withContext = withDocs.join(retrieved, seq(List.of("question_id")), "left");
    } else {
      withContext =
          withDocs
              .withColumn("passages", lit(null).cast("array<string>"))
              .withColumn("chunk_ids", lit(null).cast("array<string>"));
    }
    return withContext.select(
        java.util.Arrays.stream(AnswerInputs.SCHEMA.fieldNames())
            .map(c -> col(c))
            .toArray(Column[]::new));
  }

  /** A model is the cost of these modes: one task per core, as embed does. */
  private Dataset<Row> spread(Dataset<Row> rows) {
    int parallelism = run.spark().sparkContext().defaultParallelism();
    return rows.rdd().getNumPartitions() < parallelism ? rows.repartition(parallelism) : rows;
  }

  private EmbedderSpec embedderSpec() {
    return run.config().section(EmbedderSpec.class);
  }

  /**
   * Resolves the format, mode, backend and model, failing with the key to fix before any task runs.
   */
  static Plan plan(InfuseConfig config, Warehouse warehouse) {
    AnswerConfig options = config.section(AnswerConfig.class);
    if (options.benchmark() == null || options.benchmark().isBlank()) {
      throw new ConfigException(
          List.of(
              "answer.benchmark: got nothing, expected one of "
                  + String.join(", ", PromptFormats.benchmarks())));
    }
    PromptFormat format;
    try {
      format = PromptFormats.forBenchmark(options.benchmark());
    } catch (IllegalArgumentException e) {
      throw new ConfigException(List.of("answer." + e.getMessage()));
    }
    boolean trained = options.setting().trained();
    if (options.mode() == AnswerMode.EMBEDDING && trained) {
      throw new ConfigException(
          List.of(
              "answer.mode: got embedding with answer.setting "
                  + options.setting()
                  + ", which would ignore the trained model; expected auto, generate or loglikelihood"));
    }
    LlmConfig llm = config.section(LlmConfig.class);
    Path modelDir = null;
    if (trained) {
      if (options.modelDir() == null || options.modelDir().isBlank()) {
        throw new ConfigException(
            List.of(
                "answer.model_dir: got nothing with answer.setting "
                    + options.setting()
                    + ", expected the model directory that train wrote"));
      }
      modelDir = TrainJob.modelDir(config.warehouse(), options.modelDir());
    } else if (llm.client().backend() == LlmBackend.DJL) {
      modelDir = TrainJob.modelDir(config.warehouse(), llm.client().model());
    }
    if (modelDir != null) {
      // The trained settings always run the djl backend on the model, with the section's limits.
      llm = llm.withClient(llm.client().withModel(LlmBackend.DJL, modelDir.toString()));
      if (!Files.isRegularFile(modelDir.resolve(ModelDirectory.CONFIG))) {
        throw new ConfigException(
            List.of(
                (trained ? "answer.model_dir" : "llm.model")
                    + ": got "
                    + modelDir
                    + ", expected a model directory written by train (with "
                    + ModelDirectory.CONFIG
                    + ")"));
      }
    }
    LlmBackend backend = llm.client().backend();
    AnswerMode mode = options.mode();
    if (mode == AnswerMode.AUTO) {
      mode =
          backend == LlmBackend.EXTRACTIVE
              ? AnswerMode.EMBEDDING
              : backend == LlmBackend.DJL && format.supportsLoglikelihood()
                  ? AnswerMode.LOGLIKELIHOOD
                  : AnswerMode.GENERATE;
    }
    if (mode == AnswerMode.GENERATE && backend == LlmBackend.EXTRACTIVE) {
      throw new ConfigException(
          List.of(
              "answer.mode: got generate with llm.backend extractive, which cannot answer"
                  + " questions; expected mode embedding (the model-free default), or llm.backend openai or djl"));
    }
    if (mode == AnswerMode.LOGLIKELIHOOD && backend != LlmBackend.DJL) {
      throw new ConfigException(
          List.of(
              "answer.mode: got loglikelihood with llm.backend "
                  + backend
                  + ", expected llm.backend djl (or a trained setting): only a local model gives option log-likelihoods"));
    }
    if (mode == AnswerMode.LOGLIKELIHOOD && !format.supportsLoglikelihood()) {
      throw new ConfigException(
          List.of(
              "answer.mode: got loglikelihood for "
                  + format.benchmark()
                  + ", whose answers"
                  + " are "
                  + format.kind().name().toLowerCase(Locale.ROOT)
                  + ", expected generate"));
    }
    boolean embedding = mode == AnswerMode.EMBEDDING;
    Integer bos = null;
    if (mode == AnswerMode.LOGLIKELIHOOD) {
      try {
        bos = options.addBos().resolve(modelDir.resolve(ModelDirectory.TOKENIZER));
      } catch (IllegalArgumentException e) {
        throw new ConfigException(List.of(e.getMessage() + " (model " + modelDir + ")"));
      }
    }
    return new Plan(
        format,
        options.setting(),
        mode,
        embedding ? LlmBackend.EXTRACTIVE : backend,
        embedding ? embedderId(config.section(EmbedderSpec.class).model()) : llm.client().model(),
        modelDir,
        modelDir == null || embedding ? TrainedOn.NONE : TrainedOn.read(modelDir),
        llm,
        bos);
  }

  /**
   * The {@code synthetic_tokens} of the model directory's train_info.json (top level, or under
   * {@code data}), or null when the file or the key is absent.
   */
  public static Long syntheticTokens(Path modelDir) {
    return TrainedOn.read(modelDir).syntheticTokens();
  }

  /**
   * The retriever to read: answer.retriever, or the only one {@code retrievals} holds for the
   * benchmark.
   */
  private Retriever retriever(Warehouse warehouse) {
    if (!warehouse.exists("retrievals")) {
      throw new ConfigException(
          List.of(
              "answer.setting: got "
                  + options.setting()
                  + ", but the warehouse has no"
                  + " retrievals table; expected retrieve to have run first (or setting closed_book)"));
    }
    if (options.retriever() != null) {
      return options.retriever();
    }
    List<String> present =
        warehouse
            .read("retrievals")
            .filter(
                col("benchmark")
                    .equalTo(options.benchmark())
                    .and(col("rag_recipe").equalTo(ragRecipe())))
            .select("retriever")
            .distinct()
            .orderBy("retriever")
            .as(org.apache.spark.sql.Encoders.STRING())
            .collectAsList();
    if (present.size() != 1) {
      throw new ConfigException(
          List.of(
              "answer.retriever: got nothing, but retrievals holds "
                  + (present.isEmpty() ? "no rows" : "rows of " + String.join(", ", present))
                  + " for benchmark "
                  + options.benchmark()
                  + " in rag.recipe "
                  + ragRecipe()
                  + "; expected "
                  + (present.isEmpty() ? "retrieve to have run for it" : "one of them")));
    }
    return Retriever.fromName(present.get(0));
  }

  /**
   * The few-shot reader when answer.reader asks for it; it needs lettered options, so it fails on a
   * benchmark without them.
   */
  private FewShotReader fewShotReader(Plan plan) {
    if (!options.fewShot()) {
      return null;
    }
    if (plan.format().kind() != PromptFormat.Kind.MCQ) {
      throw new ConfigException(
          List.of(
              "answer.reader: got "
                  + AnswerConfig.FEW_SHOT_COT
                  + " for benchmark "
                  + plan.format().benchmark()
                  + ", whose answers are not lettered options; expected "
                  + AnswerConfig.ZERO_SHOT
                  + ", or a multiple-choice benchmark (quality, longhealth, medqa)"));
    }
    return new FewShotReader(
        PromptLibrary.load(
                run.spark().sparkContext().hadoopConfiguration(), run.config().run().promptsDir())
            .get(AnswerConfig.FEW_SHOT_COT_PROMPT));
  }

  /** The RAG recipe whose retrievals and chunks a rag setting reads (rag.recipe). */
  private String ragRecipe() {
    return run.config().section(RagConfig.class).recipe();
  }

  private void print(Plan plan, Retriever retriever, RunCounts counts, WriteResult write) {
    var out = run.out();
    out.printf(
        Locale.ROOT,
        "answer: %s, %s, %s:%s in %s mode%s%n",
        plan.format().benchmark(),
        plan.setting(),
        plan.backend(),
        plan.model(),
        plan.mode(),
        plan.mode() == AnswerMode.EMBEDDING
            ? " (model-free default: the option most similar to the context; weak but real)"
            : "");
    if (options.fewShot() && plan.mode() != AnswerMode.GENERATE) {
      out.printf(
          Locale.ROOT,
          "  answer.reader %s not used: %s mode reads no chat prompt%n",
          AnswerConfig.FEW_SHOT_COT,
          plan.mode());
    }
    if (retriever != null) {
      out.printf(
          Locale.ROOT,
          "  context: top %d chunk(s) of retriever %s, %s, rag.recipe %s%n",
          options.k(),
          retriever,
          options.chunkOrder(),
          ragRecipe());
    }
    Map<String, Long> d = counts.details();
    out.printf(
        Locale.ROOT,
        "  %d question(s): %d answered, %d quarantined; %d of %d judged correct (%.1f%%), %d"
            + " unparseable%n",
        counts.input(),
        counts.output(),
        counts.quarantined(),
        d.get("correct"),
        d.get("judged"),
        d.get("judged") == 0 ? 0.0 : 100.0 * d.get("correct") / d.get("judged"),
        d.get("unparseable"));
    if (plan.mode() == AnswerMode.LOGLIKELIHOOD) {
      out.printf(
          Locale.ROOT,
          "  options scored %s (answer.add_bos %s)%n",
          plan.bosTokenId() == null ? "without BOS" : "after BOS (token " + plan.bosTokenId() + ")",
          options.addBos());
    }
    if (!plan.trainedOn().describe().isEmpty()) {
      out.println("  model trained on " + plan.trainedOn().describe());
    }
    out.println("  " + write);
    out.flush();
  }

  private static String embedderId(String model) {
    try {
      return EmbeddingModelFiles.modelId(model);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(List.of("embed." + e.getMessage().replaceFirst("^embed ", "")));
    }
  }

  private static scala.collection.Seq<String> seq(List<String> names) {
    return scala.collection.JavaConverters.asScalaBuffer(names).toSeq();
  }
}
