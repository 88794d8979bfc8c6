package dev.infuse.jobs.answer;

import static org.apache.spark.sql.functions.coalesce;
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
import dev.infuse.jobs.io.TokenizerFiles;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.jobs.io.WriteResult;
import dev.infuse.jobs.llm.LlmCallRunner;
import dev.infuse.jobs.llm.LlmConfig;
import dev.infuse.jobs.llm.LlmFailures;
import dev.infuse.jobs.run.JobFailedException;
import dev.infuse.jobs.run.JobRun;
import dev.infuse.jobs.run.RunCounts;
import dev.infuse.jobs.train.TrainJob;
import dev.infuse.udfs.answer.PromptFormat;
import dev.infuse.udfs.answer.PromptFormats;
import dev.infuse.udfs.answer.Setting;
import dev.infuse.udfs.embed.EmbedderSpec;
import dev.infuse.udfs.embed.EmbeddingModelFiles;
import dev.infuse.udfs.llm.LlmBackend;
import dev.infuse.udfs.llm.LoglikelihoodPrompt;
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
import org.apache.spark.sql.SparkSession;
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
      EndpointModel endpoint,
      byte[] tokenizerJson,
      TrainedOn trainedOn,
      LlmConfig llm,
      Integer bosTokenId) {}

  /**
   * The answered questions, and what the LLM layer did when the mode called it.
   *
   * @param unusableServer the error of a call whose server cannot answer the mode at all (no prompt
   *     log-probabilities), which fails the run once its rows are written; null otherwise
   */
  private record Answered(Dataset<Row> rows, LlmCallRunner.Outcome llm, String unusableServer) {
    Answered(Dataset<Row> rows, LlmCallRunner.Outcome llm) {
      this(rows, llm, null);
    }
  }

  /**
   * One run's questions, resolved before any task runs: what answers them, from which retriever
   * (rag settings), the questions with their context, and the rows their answers become.
   */
  record Prepared(
      AnswerJob job, Plan plan, Retriever retriever, Dataset<Row> inputs, PredictionRows rows) {}

  /** What one run counted: its questions, predictions, right and judged ones, and dead letters. */
  record Tally(
      long read, long predicted, long correct, long judged, long unparseable, long quarantined) {
    /**
     * From a row holding {@link #TALLY}'s four columns from index {@code at}; a null row is a run
     * without predictions.
     */
    static Tally of(long read, Row tally, int at, long quarantined) {
      return tally == null
          ? new Tally(read, 0, 0, 0, 0, quarantined)
          : new Tally(
              read,
              tally.getLong(at),
              tally.getLong(at + 1),
              tally.getLong(at + 2),
              tally.getLong(at + 3),
              quarantined);
    }
  }

  public RunCounts run() {
    if (options.mode() == AnswerMode.BEHAVIOR) {
      return new BehaviorAnswerJob(run).run();
    }
    Prepared prepared = prepare();
    Plan plan = prepared.plan();
    PredictionRows rows = prepared.rows();
    Dataset<Row> inputs = prepared.inputs().persist(StorageLevel.MEMORY_AND_DISK());
    try {
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
                            byDocument(answerable)
                                .javaRDD()
                                .mapPartitions(embeddingAnswers(plan, rows)),
                            PredictionRows.SCHEMA),
                    null);
            case LOGLIKELIHOOD ->
                plan.endpoint() != null
                    ? endpointLoglikelihood(answerable, plan, rows)
                    : new Answered(
                        run.spark()
                            .createDataFrame(
                                spread(answerable)
                                    .javaRDD()
                                    .mapPartitions(loglikelihoodAnswers(plan, rows)),
                                PredictionRows.SCHEMA),
                        null);
            default -> generate(answerable, plan, rows);
          };
      Dataset<Row> answered = answers.rows().persist(StorageLevel.MEMORY_AND_DISK());
      Dataset<Row> rejected = deadLetters(unanswerable(prepared, answered, missingContext));
      Contract contract = Contracts.load(TABLE);
      Dataset<Row> predictions = predictions(prepared, answered);

      long read = inputs.count();
      Row tally = predictions.select(TALLY).head();
      long quarantined = rejected.count();
      // Every row belongs to this new run: nothing to compare with what the table holds.
      WriteResult write = warehouse().upsertFresh(contract, predictions);
      WriteResult quarantineWrite = run.quarantine(rejected, quarantined);
      answered.unpersist();
      RunCounts counts =
          counts(
              prepared,
              Tally.of(read, tally, 0, quarantined),
              answers.llm(),
              write,
              quarantineWrite);
      if (answers.unusableServer() != null) {
        throw new JobFailedException(
            NAME
                + ": "
                + plan.endpoint().label()
                + " at "
                + plan.llm().client().baseUrl()
                + " cannot score answer.mode loglikelihood: "
                + answers.unusableServer(),
            counts);
      }
      return LlmFailures.check(
          NAME, "LLM calls", answers.llm(), plan.llm().maxFailureFraction(), counts);
    } finally {
      inputs.unpersist();
    }
  }

  /** The run's plan, retriever and questions; nothing is computed yet. */
  Prepared prepare() {
    Plan plan = plan(run.config(), run.spark());
    Retriever retriever = plan.setting().rag() ? retriever(warehouse()) : null;
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
    return new Prepared(this, plan, retriever, inputs(warehouse(), plan, retriever), rows);
  }

  private Warehouse warehouse() {
    return run.warehouse();
  }

  EmbeddingAnswers embeddingAnswers(Plan plan, PredictionRows rows) {
    return new EmbeddingAnswers(
        embedderSpec(), rows, plan.format().kind() == PromptFormat.Kind.LABEL);
  }

  LoglikelihoodAnswers loglikelihoodAnswers(Plan plan, PredictionRows rows) {
    return new LoglikelihoodAnswers(
        new LmModelSpec(plan.modelDir().toString(), plan.llm().client().device()),
        plan.format(),
        rows,
        Math.max(1, plan.llm().client().maxConcurrency()),
        plan.bosTokenId());
  }

  /**
   * The tally of a run's predictions, over {@code predictions} rows: how many, how many right, how
   * many judged, how many without a parsed answer.
   */
  static final Column[] TALLY = {
    org.apache.spark.sql.functions.expr("count(*)"),
    org.apache.spark.sql.functions.expr("coalesce(sum(CASE WHEN correct THEN 1 ELSE 0 END), 0)"),
    org.apache.spark.sql.functions.expr(
        "coalesce(sum(CASE WHEN correct IS NOT NULL THEN 1 ELSE 0 END), 0)"),
    org.apache.spark.sql.functions.expr(
        "coalesce(sum(CASE WHEN parsed_answer IS NULL THEN 1 ELSE 0 END), 0)")
  };

  /**
   * The run's answers bound for {@code predictions}, in the contract's columns: those without a
   * reason, with the run's rag recipe.
   */
  Dataset<Row> predictions(Prepared prepared, Dataset<Row> answered) {
    Contract contract = Contracts.load(TABLE);
    return answered
        .filter(col("reason").isNull())
        .withColumn(
            "rag_recipe",
            prepared.plan().setting().rag() ? lit(ragRecipe()) : lit(null).cast("string"))
        .select(contract.columnNames().stream().map(c -> col(c)).toArray(Column[]::new));
  }

  /**
   * The run's questions that got no answer, {@code (question_id, payload, reason)}: those its mode
   * rejected and, in a rag setting, those without retrieved context ({@code missingContext}).
   */
  Dataset<Row> unanswerable(Prepared prepared, Dataset<Row> answered, Dataset<Row> missingContext) {
    String noRetrievals =
        "no retrievals for this question from retriever "
            + prepared.retriever()
            + " (or their chunks are gone);"
            + " run retrieve for benchmark "
            + prepared.plan().format().benchmark();
    Dataset<Row> rejectedContext =
        missingContext.select(
            col("question_id"), col("question").as("payload"), lit(noRetrievals).as("reason"));
    return answered
        .filter(col("reason").isNotNull())
        .select("question_id", "payload", "reason")
        .unionByName(rejectedContext);
  }

  /** {@link #unanswerable} as the dead letters of {@code questions}. */
  static Dataset<Row> deadLetters(Dataset<Row> unanswerable) {
    return Quarantine.deadLetters(
        unanswerable, lit("questions"), col("question_id"), col("payload"), col("reason"));
  }

  /**
   * The run's counts and details, as {@code runs} records them, after printing what it did.
   *
   * @param llm what the LLM layer did, or null when the mode did not call it
   */
  RunCounts counts(
      Prepared prepared,
      Tally tally,
      LlmCallRunner.Outcome llm,
      WriteResult write,
      WriteResult quarantineWrite) {
    Plan plan = prepared.plan();
    Map<String, Long> details = new LinkedHashMap<>();
    if (llm != null) {
      details.putAll(LlmCallRunner.details(llm));
    }
    details.put("questions", tally.read());
    details.put("predictions", tally.predicted());
    details.put("correct", tally.correct());
    details.put("judged", tally.judged());
    details.put("unparseable", tally.unparseable());
    if (plan.mode() == AnswerMode.LOGLIKELIHOOD) {
      // Which BOS convention scored the options (answer.add_bos resolved on the model's
      // tokenizer), for the report's run info.
      details.put("loglikelihood.add_bos", plan.bosTokenId() == null ? 0L : 1L);
      if (plan.bosTokenId() != null) {
        details.put("loglikelihood.bos_token_id", (long) plan.bosTokenId());
      }
      if (plan.endpoint() != null) {
        // Through the completions API: how its prompts were sent.
        details.put("loglikelihood.tokenized_requests", plan.endpoint().tokenized() ? 1L : 0L);
      }
    }
    details.put(TABLE + ".inserted", write.inserted());
    details.put("quarantine.inserted", quarantineWrite.inserted());
    RunCounts counts = new RunCounts(tally.read(), tally.predicted(), tally.quarantined(), details);
    print(plan, prepared.retriever(), counts, write);
    return counts;
  }

  /**
   * Loglikelihood over an endpoint: one completions request per option through the LLM layer, then
   * one prediction per question from its options' results. Questions no request could be built for
   * are rejected with the reason.
   */
  private Answered endpointLoglikelihood(Dataset<Row> answerable, Plan plan, PredictionRows rows) {
    EndpointLoglikelihoodAnswers answers =
        new EndpointLoglikelihoodAnswers(
            plan.format(),
            plan.backend().id(),
            plan.endpoint(),
            plan.bosTokenId(),
            new org.apache.spark.api.java.JavaSparkContext(run.spark().sparkContext())
                .broadcast(plan.tokenizerJson()),
            rows);
    Dataset<Row> built =
        run.spark()
            .createDataFrame(
                answerable.javaRDD().mapPartitions(answers::requests),
                EndpointLoglikelihoodAnswers.REQUESTS)
            .persist(StorageLevel.MEMORY_AND_DISK());
    Dataset<Row> requests = built.filter(col("reason").isNull()).drop("payload", "reason");
    LlmCallRunner runner = new LlmCallRunner(run, plan.llm());
    LlmCallRunner.Outcome outcome = runner.call(requests);
    printCalls(plan, outcome);
    Dataset<Row> calls =
        runner
            .responses(requests.select("question_id", "option", "call_key"))
            .groupBy("question_id")
            .agg(
                sort_array(
                        collect_list(
                            struct(
                                col("option"),
                                col("call_key"),
                                col("status"),
                                col("response_text"),
                                col("error"))))
                    .as("calls"));
    Dataset<Row> asked =
        run.spark()
            .createDataFrame(
                answerable.join(calls, seq(List.of("question_id"))).javaRDD().map(answers::parse),
                PredictionRows.SCHEMA);
    Dataset<Row> unasked =
        rows.rejections(
            run.spark(),
            built.filter(col("reason").isNotNull()).select("question_id", "payload", "reason"),
            plan.format().benchmark());
    String unusable = null;
    if (outcome.failed() > 0) {
      List<String> errors =
          calls
              .select(org.apache.spark.sql.functions.explode(col("calls")).as("c"))
              .filter(col("c.error").contains(LoglikelihoodPrompt.NO_PROMPT_LOGPROBS))
              .select("c.error")
              .limit(1)
              .as(org.apache.spark.sql.Encoders.STRING())
              .collectAsList();
      unusable = errors.isEmpty() ? null : errors.get(0);
    }
    return new Answered(asked.unionByName(unasked), outcome, unusable);
  }

  private void printCalls(Plan plan, LlmCallRunner.Outcome outcome) {
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
    printCalls(plan, outcome);
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
  Dataset<Row> spread(Dataset<Row> rows) {
    int parallelism = run.spark().sparkContext().defaultParallelism();
    return rows.rdd().getNumPartitions() < parallelism ? rows.repartition(parallelism) : rows;
  }

  /**
   * One document's questions in one task, in a row: their contexts are mostly the same chunks, and
   * the answerer embeds a text once per task ({@link dev.infuse.udfs.answer.EmbeddingAnswerer}'s
   * cache). Spread round-robin, every task embedded nearly every chunk again; on the demo that was
   * four times the work (166 s of its 840 s). Questions without a document spread by their own id.
   */
  Dataset<Row> byDocument(Dataset<Row> rows) {
    int parallelism = run.spark().sparkContext().defaultParallelism();
    Column key = coalesce(col("doc_id"), col("question_id"));
    return rows.repartition(parallelism, key).sortWithinPartitions(key, col("question_id"));
  }

  private EmbedderSpec embedderSpec() {
    return run.config().section(EmbedderSpec.class);
  }

  /**
   * Resolves the format, mode, backend and model, failing with the key to fix before any task runs.
   */
  static Plan plan(InfuseConfig config, SparkSession spark) {
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
    EndpointModel endpoint = trained ? options.endpoint() : null;
    if (endpoint != null) {
      // A trained model behind an OpenAI-compatible server: the openai backend, the llm limits.
      llm = llm.withClient(endpoint.client(llm.client()));
    } else if (trained) {
      if (options.modelDir() == null || options.modelDir().isBlank()) {
        throw new ConfigException(
            List.of(
                "answer.model_dir: got nothing with answer.setting "
                    + options.setting()
                    + ", expected the model directory that train wrote (or answer.endpoint, a"
                    + " trained model served over HTTP)"));
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
      // A trained model, in the JVM or behind an endpoint, is scored as lm-evaluation-harness
      // scores a base model on a choice benchmark; so both kinds of a sweep are answered alike.
      mode =
          backend == LlmBackend.EXTRACTIVE
              ? AnswerMode.EMBEDDING
              : (backend == LlmBackend.DJL || endpoint != null) && format.supportsLoglikelihood()
                  ? AnswerMode.LOGLIKELIHOOD
                  : AnswerMode.GENERATE;
    }
    if (mode == AnswerMode.GENERATE && backend == LlmBackend.EXTRACTIVE) {
      throw new ConfigException(
          List.of(
              "answer.mode: got generate with llm.backend extractive, which cannot answer"
                  + " questions; expected mode embedding (the model-free default), or llm.backend openai or djl"));
    }
    if (mode == AnswerMode.LOGLIKELIHOOD && backend != LlmBackend.DJL && endpoint == null) {
      throw new ConfigException(
          List.of(
              "answer.mode: got loglikelihood with llm.backend "
                  + backend
                  + ", expected llm.backend djl, or a trained setting with answer.model_dir or"
                  + " answer.endpoint: only a trained model gives option log-likelihoods"));
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
    byte[] tokenizerJson = null;
    if (mode == AnswerMode.LOGLIKELIHOOD && endpoint != null) {
      if (endpoint.tokenizer() == null) {
        throw new ConfigException(
            List.of(
                "answer.endpoint.tokenizer: got nothing for "
                    + endpoint.label()
                    + " in loglikelihood mode ("
                    + options.mode()
                    + " for "
                    + format.benchmark()
                    + "), expected the served model's tokenizer.json, which counts the context's"
                    + " and the continuation's tokens; or answer.mode=generate"));
      }
      tokenizerJson = TokenizerFiles.read(spark, endpoint.tokenizer(), "answer.endpoint.tokenizer");
      try {
        bos = options.addBos().resolve(tokenizerJson);
      } catch (IllegalArgumentException e) {
        throw new ConfigException(
            List.of(e.getMessage() + " (answer.endpoint.tokenizer " + endpoint.tokenizer() + ")"));
      }
    } else if (mode == AnswerMode.LOGLIKELIHOOD) {
      try {
        bos = options.addBos().resolve(modelDir.resolve(ModelDirectory.TOKENIZER));
      } catch (IllegalArgumentException e) {
        throw new ConfigException(List.of(e.getMessage() + " (model " + modelDir + ")"));
      }
    }
    TrainedOn trainedOn = TrainedOn.NONE;
    if (endpoint != null) {
      trainedOn =
          endpoint.trainedOn(
              config.warehouse(), spark.sparkContext().hadoopConfiguration(), "answer.endpoint");
    } else if (modelDir != null && !embedding) {
      trainedOn = TrainedOn.read(modelDir);
    }
    return new Plan(
        format,
        options.setting(),
        mode,
        embedding ? LlmBackend.EXTRACTIVE : backend,
        embedding ? embedderId(config.section(EmbedderSpec.class).model()) : llm.client().model(),
        modelDir,
        endpoint,
        tokenizerJson,
        trainedOn,
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
    if (plan.endpoint() != null) {
      out.printf(
          Locale.ROOT,
          "  endpoint %s: %s at %s%s%n",
          plan.endpoint().label(),
          plan.endpoint().model(),
          plan.llm().client().baseUrl(),
          plan.mode() == AnswerMode.LOGLIKELIHOOD
              ? ", loglikelihood through /completions with prompts as "
                  + (plan.endpoint().tokenized() ? "token ids" : "text")
                  + (plan.endpoint().maxLength() == null
                      ? ""
                      : ", cut to max_length " + plan.endpoint().maxLength())
              : "");
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
