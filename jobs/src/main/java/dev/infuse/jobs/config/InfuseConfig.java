package dev.infuse.jobs.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The whole configuration, bound from YAML: the built-in defaults ({@code
 * dev/infuse/jobs/defaults.yaml}, which documents every key), then each {@code --config} file, then
 * each {@code --set key=value}, then the job's own flags. Keys are snake_case; unknown keys are
 * errors.
 *
 * @param warehouse where the Delta tables live: a directory or any Hadoop URI
 */
public record InfuseConfig(
    String warehouse,
    RunConfig run,
    SparkConfig spark,
    IngestConfig ingest,
    ChunkConfig chunk,
    EmbedConfig embed,
    LlmConfig llm,
    GenQaConfig genQa,
    GenDocsConfig genDocs,
    TrainConfig train,
    ShardsConfig shards,
    DemoConfig demo,
    ReportConfig report,
    ScoreConfig score,
    AnswerConfig answer,
    IndexConfig index,
    RetrieveConfig retrieve,
    EvaluateConfig evaluate) {

  /**
   * Settings every job shares.
   *
   * @param seed the run seed; all sampling derives from (seed, row key)
   * @param progressIntervalSeconds how often the driver prints progress; 0 turns it off
   * @param promptsDir where the prompt templates are: a directory or URI, relative to the Infuse
   *     home
   */
  public record RunConfig(long seed, int progressIntervalSeconds, String promptsDir) {}

  /**
   * @param master the Spark master for local runs; ignored when spark-submit or the platform sets
   *     one
   * @param conf extra Spark settings, applied when Infuse creates the session
   */
  public record SparkConfig(String master, Map<String, String> conf) {}

  /**
   * @param format the reader: quality, financebench, gsm8k, anli, medqa, longhealth, medec,
   *     aci-bench, agentclinic
   * @param input a file or directory, local or any Hadoop URI
   * @param maxBadFraction the job fails (after quarantining) when more than this fraction of items
   *     is bad
   */
  public record IngestConfig(String format, String input, double maxBadFraction) {}

  /**
   * @param maxTokens the chunk size in tokens (EntiGraph's RAG recipe: 1024)
   * @param overlapTokens tokens shared by consecutive chunks
   * @param tokenizer {@code default} (all-MiniLM-L6-v2, shipped in the jar) or the path or URI of a
   *     HuggingFace tokenizer.json
   * @param corpus chunk only this corpus; null for every document
   */
  public record ChunkConfig(int maxTokens, int overlapTokens, String tokenizer, String corpus) {}

  /**
   * The {@code embed} job's model; see {@code EmbedderSpec} in udfs.
   *
   * @param model {@code default} (all-MiniLM-L6-v2, shipped in the jar) or a local directory
   *     holding model.onnx or model.pt beside tokenizer.json, present on every executor
   * @param device auto, cpu, gpu or gpu:N
   * @param batchSize texts per forward pass
   * @param threads ONNX Runtime threads per forward pass
   */
  public record EmbedConfig(String model, String device, int batchSize, int threads) {
    /** What executors load: the closure carries this, never a model. */
    public dev.infuse.udfs.embed.EmbedderSpec spec() {
      return new dev.infuse.udfs.embed.EmbedderSpec(model, device, batchSize, threads);
    }
  }

  /**
   * Where every LLM call goes, and what it may cost. See defaults.yaml for each key.
   *
   * @param apiKeyEnv the NAME of the environment variable holding the API key, never the key
   * @param maxTotalTokens stop cleanly once a run has used this many tokens (in + out); 0 for no
   *     limit
   * @param prices per model, in US dollars per million tokens, for the cost estimate in {@code
   *     runs}
   * @param maxFailureFraction fail the run when more than this fraction of its calls failed for
   *     good
   */
  public record LlmConfig(
      String backend,
      String baseUrl,
      String model,
      String apiKeyEnv,
      int maxConcurrency,
      int requestTimeoutSeconds,
      int rowTimeoutSeconds,
      int maxAttempts,
      long initialBackoffMillis,
      long maxBackoffMillis,
      int maxTokens,
      double temperature,
      double topP,
      long maxTotalTokens,
      Map<String, Price> prices,
      double maxFailureFraction,
      int rowsPerTask,
      String device) {}

  /** US dollars per million tokens. */
  public record Price(double inputPerMillion, double outputPerMillion) {}

  /**
   * @param unit generate per {@code chunk} or per {@code document}
   * @param pairsPerUnit QA pairs asked for per unit
   * @param maxUnits the most units to generate for, in a stable order; 0 for all
   * @param corpus only this corpus; null for all
   */
  public record GenQaConfig(String unit, int pairsPerUnit, int maxUnits, String corpus) {}

  /**
   * @param kinds which kinds to generate: rephrase, entity, focal
   * @param rephraseStyles WRAP-like styles: simple, encyclopedic, terse, qa_dialogue
   * @param rephrasesPerStyle samples per document and style (different seeds)
   * @param maxEntities entities extracted per document
   * @param entitySingles documents about one entity, per source document (the most frequent first)
   * @param entityPairs documents about a pair of entities, per source document (seeded sample)
   * @param entityTriples documents about three entities, per source document (seeded sample)
   * @param questionsPerFocal questions each focal rewrite is conditioned on
   * @param focalPerDoc focal rewrites per source document
   * @param maxDocs the most source documents, in a stable order; 0 for all
   * @param corpus only this corpus; null for all
   */
  public record GenDocsConfig(
      java.util.List<String> kinds,
      java.util.List<String> rephraseStyles,
      int rephrasesPerStyle,
      int maxEntities,
      int entitySingles,
      int entityPairs,
      int entityTriples,
      int questionsPerFocal,
      int focalPerDoc,
      int maxDocs,
      String corpus) {}

  /**
   * Causal-LM training ({@code train}) on text in the warehouse or on packed token shards. See
   * defaults.yaml for each key; the optimiser keys are AdamW's.
   *
   * @param sources tables whose text is trained on: documents, synthetic_docs, synthetic_qa
   * @param shards a directory of Parquet shards with {@code input_ids} (and optionally {@code
   *     document_lengths}, {@code loss_mask}); when set, {@code sources} is ignored
   * @param modelDir where the final model and its checkpoints go: a local or FUSE-mounted path
   * @param initFrom a model directory to continue training from; null starts from a seeded init
   * @param lossOn {@code all} tokens, or {@code answer} tokens only (synthetic_qa answers; SFT)
   */
  public record TrainConfig(
      java.util.List<String> sources,
      String shards,
      String corpus,
      String modelDir,
      String initFrom,
      String tokenizer,
      int layers,
      int dModel,
      int heads,
      int contextLength,
      int sequenceLength,
      int batchSize,
      int steps,
      double learningRate,
      double minLearningRate,
      int warmupSteps,
      double weightDecay,
      double beta1,
      double beta2,
      double epsilon,
      double gradientClip,
      int checkpointEvery,
      String lossOn,
      boolean maskDocumentBoundaries,
      String device) {}

  /**
   * {@code build-shards}: mixture, output, formats, tokenization and the cleaning stages.
   *
   * @param mixture a mixture file ({@code conf/mixtures/*.yaml}), relative to the Infuse home
   * @param output the output directory or URI; relative to the warehouse; null for {@code
   *     <warehouse>/shards/<mixture name>}
   * @param seed overrides the mixture's seed; null keeps it
   * @param totalTokens overrides the mixture's token target (0: every token once); null keeps it
   * @param tokensPerShard shards are cut so that each holds about this many tokens
   */
  public record ShardsConfig(
      String mixture,
      String output,
      java.util.List<String> formats,
      String tokenizer,
      int sequenceLength,
      boolean pack,
      long tokensPerShard,
      String corpus,
      String replay,
      Long seed,
      Long totalTokens,
      ShardDedupConfig dedup,
      ShardDecontaminationConfig decontamination) {}

  /**
   * {@code shards.dedup}: exact and MinHash-LSH near-duplicate removal ({@code DedupConfig}
   * documents the defaults).
   */
  public record ShardDedupConfig(
      boolean enabled,
      int shingleSize,
      int numPermutations,
      int bands,
      int rows,
      double jaccardThreshold,
      long seed,
      int maxBucketSize) {
    public dev.infuse.udfs.dedup.DedupConfig settings() {
      return new dev.infuse.udfs.dedup.DedupConfig(
          shingleSize, numPermutations, bands, rows, jaccardThreshold, seed, maxBucketSize);
    }
  }

  /**
   * {@code shards.decontamination}: n-gram decontamination against the {@code questions} table.
   *
   * @param benchmarks the benchmarks to protect; empty for every benchmark in {@code questions}
   * @param mode remove_span or drop_row
   */
  public record ShardDecontaminationConfig(
      boolean enabled,
      java.util.List<String> benchmarks,
      int ngramWords,
      int minShortWords,
      String mode,
      int marginChars) {}

  /**
   * @param input the demo's QuALITY file, relative to the Infuse home directory
   */
  public record DemoConfig(String input) {}

  /**
   * The {@code report} job: a self-contained HTML report and its numbers as JSON.
   *
   * @param output the report's directory, any Hadoop URI; relative paths are relative to the
   *     warehouse; null for {@code reports/<score run id>} under the warehouse
   * @param title the report's title
   * @param scoreRuns the score runs (score_run_id) whose scores, comparisons and fits are reported;
   *     empty for the latest one, {@code [all]} for every row of the tables
   * @param retrieveRuns the retrieve runs whose recall@k is reported; empty for the latest run of
   *     each benchmark and retriever, {@code [all]} for every row
   */
  public record ReportConfig(
      String output,
      String title,
      java.util.List<String> scoreRuns,
      java.util.List<String> retrieveRuns) {
    /** A null list (score_runs: null) means the default, like an empty one. */
    public ReportConfig {
      scoreRuns = scoreRuns == null ? java.util.List.of() : scoreRuns;
      retrieveRuns = retrieveRuns == null ? java.util.List.of() : retrieveRuns;
    }
  }

  /**
   * The {@code score} and {@code fit-scaling} jobs. See defaults.yaml for each key.
   *
   * @param runs predictions runs to score; empty for every run in {@code predictions}
   * @param bootstrapResamples resamples of every percentile and paired bootstrap (at least 100)
   * @param confidence the intervals' coverage, strictly between 0 and 1
   * @param seed the bootstrap seed; null takes {@code run.seed}
   * @param numericTolerance relative tolerance of FinanceBench numeric grading
   * @param judge the LLM judge for free answers that are not numeric: auto (on unless the backend
   *     is extractive, which cannot judge), on, off
   * @param judgeMaxTokens the judge's completion budget
   * @param compare pairs of predictions runs {@code [[a, b], ...]} to compare with the paired
   *     bootstrap (b - a); empty for none
   * @param scalingBenchmark the benchmark of the scaling sweep; null: the only benchmark the
   *     sweep's runs share
   * @param scalingSetting the setting whose runs form the sweep (trained)
   * @param scalingMetric the scores metric fitted (accuracy)
   * @param scalingRuns the sweep's runs; empty for every scored run of the benchmark and setting
   *     with synthetic_tokens
   * @param scalingBaselineSetting the setting the line is compared with (rag); null for none
   * @param scalingBaselineRun the baseline run; null: the only scored run of that setting on the
   *     benchmark
   */
  public record ScoreConfig(
      java.util.List<String> runs,
      int bootstrapResamples,
      double confidence,
      Long seed,
      double numericTolerance,
      String judge,
      int judgeMaxTokens,
      java.util.List<java.util.List<String>> compare,
      String scalingBenchmark,
      String scalingSetting,
      String scalingMetric,
      java.util.List<String> scalingRuns,
      String scalingBaselineSetting,
      String scalingBaselineRun) {
    /** The bootstrap seed: {@code score.seed}, else {@code run.seed}. */
    public long seedOr(long runSeed) {
      return seed == null ? runSeed : seed;
    }

    /** Whether free answers that are not numeric go to the LLM judge with this backend. */
    public boolean judgeWith(String backend) {
      return "on".equals(judge) || "auto".equals(judge) && !"extractive".equals(backend);
    }
  }

  /**
   * The {@code answer} job: one backend and model on one benchmark's questions in one setting. See
   * defaults.yaml for each key.
   *
   * @param benchmark questions.benchmark to answer; required by the job (null here so other jobs
   *     need none)
   * @param split only this split; null for all
   * @param setting closed_book, rag (retrieved chunks in context), trained (the model in {@code
   *     model_dir}) or trained_rag
   * @param mode auto, generate, loglikelihood or embedding
   * @param retriever which retriever's rows of {@code retrievals} to use; null for the only one
   *     there
   * @param k the top-k retrieved chunks put in context
   * @param chunkOrder best_first or best_last (the best chunk nearest the question)
   * @param modelDir the model directory from {@code train} for the trained settings
   * @param maxQuestions the most questions, in question_id order; 0 for all
   */
  public record AnswerConfig(
      String benchmark,
      String split,
      String setting,
      String mode,
      String retriever,
      int k,
      String chunkOrder,
      boolean chainOfThought,
      String modelDir,
      int maxTokens,
      double temperature,
      int maxQuestions) {}

  /**
   * The {@code index} job: Lucene BM25 shards over {@code chunks}, and the chunks' embeddings for
   * {@code embed.model}.
   *
   * @param chunksPerShard a corpus with n chunks gets ceil(n / chunks_per_shard) shards; a
   *     document's chunks always share one shard
   * @param dense also bring {@code chunk_embeddings} up to date for {@code embed.model} (what
   *     {@code embed} does)
   */
  public record IndexConfig(int chunksPerShard, boolean dense) {}

  /**
   * The {@code retrieve} job. See defaults.yaml for each key.
   *
   * @param retriever bm25, dense or hybrid (reciprocal-rank fusion of the two)
   * @param k chunks retrieved per question
   * @param scoping auto (a question with a doc_id searches its document, one without the corpus),
   *     document or corpus
   * @param rrfK the RRF constant: a chunk scores the sum of 1 / (rrf_k + rank)
   * @param rrfDepth for hybrid: how many chunks of each ranking are fused (>= k)
   * @param recallKs the k of each recall@k row; those above {@code k} are skipped (a run retrieves
   *     only k)
   * @param benchmark only this benchmark's questions; null for every question with indexed
   *     documents
   * @param maxQuestions the first N questions by question_id; 0 for all
   */
  public record RetrieveConfig(
      String retriever,
      int k,
      String scoping,
      int rrfK,
      int rrfDepth,
      java.util.List<Integer> recallKs,
      String benchmark,
      int maxQuestions) {}

  /**
   * The {@code evaluate} job: the whole evaluation of Synthetic Mixed Training from one config, as
   * a chain of recorded jobs. See defaults.yaml for each key.
   *
   * @param benchmarks questions.benchmark of each benchmark evaluated (quality, longhealth,
   *     financebench, ...)
   * @param settings the answer settings run on every benchmark
   * @param models the trained settings' model directories from {@code train}; several trained on
   *     different synthetic token counts are a sweep, fitted by {@code fit-scaling}
   * @param compare setting pairs {@code [[a, b], ...]} compared (b - a) on every benchmark; a
   *     trained setting stands for the last model of {@code models}; a pair with a setting not run
   *     is skipped
   * @param retrieve chunk, index and retrieve before the rag settings; false reads {@code
   *     retrievals} as they are
   * @param report write the HTML and JSON report at the end
   */
  public record EvaluateConfig(
      java.util.List<String> benchmarks,
      java.util.List<String> settings,
      java.util.List<String> models,
      java.util.List<java.util.List<String>> compare,
      boolean retrieve,
      boolean report) {
    /** Whether any setting reads retrieved chunks. */
    public boolean anyRag() {
      return settings.stream().anyMatch(s -> s.endsWith("rag"));
    }
  }

  /** Every semantic problem, as "key: got X, expected Y"; empty when the config is usable. */
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    if (warehouse == null || warehouse.isBlank()) {
      problems.add("warehouse: got nothing, expected a directory or URI");
    }
    if (run.progressIntervalSeconds() < 0) {
      problems.add(
          "run.progress_interval_seconds: got "
              + run.progressIntervalSeconds()
              + ", expected >= 0");
    }
    if (spark.master() == null || spark.master().isBlank()) {
      problems.add("spark.master: got nothing, expected a Spark master such as local[*]");
    }
    double bad = ingest.maxBadFraction();
    if (!(bad >= 0 && bad <= 1)) {
      problems.add("ingest.max_bad_fraction: got " + bad + ", expected a fraction in 0..1");
    }
    if (chunk.maxTokens() < 16) {
      problems.add("chunk.max_tokens: got " + chunk.maxTokens() + ", expected an integer >= 16");
    }
    if (chunk.overlapTokens() < 0 || chunk.overlapTokens() * 2 >= Math.max(chunk.maxTokens(), 1)) {
      problems.add(
          "chunk.overlap_tokens: got "
              + chunk.overlapTokens()
              + ", expected 0 <= overlap < max_tokens / 2 ("
              + chunk.maxTokens()
              + " / 2)");
    }
    if (chunk.tokenizer() == null || chunk.tokenizer().isBlank()) {
      problems.add(
          "chunk.tokenizer: got nothing, expected 'default' or the path of a tokenizer.json");
    }
    embed.spec().problems().forEach(problem -> problems.add("embed." + problem));
    if (llm.maxConcurrency() < 1) {
      problems.add(
          "llm.max_concurrency: got " + llm.maxConcurrency() + ", expected an integer >= 1");
    }
    if (llm.maxAttempts() < 1) {
      problems.add("llm.max_attempts: got " + llm.maxAttempts() + ", expected an integer >= 1");
    }
    if (llm.requestTimeoutSeconds() < 1 || llm.rowTimeoutSeconds() < llm.requestTimeoutSeconds()) {
      problems.add(
          "llm.row_timeout_seconds: got "
              + llm.rowTimeoutSeconds()
              + " with request_timeout_seconds "
              + llm.requestTimeoutSeconds()
              + ", expected 1 <= request_timeout_seconds <= row_timeout_seconds");
    }
    if (llm.maxTotalTokens() < 0) {
      problems.add(
          "llm.max_total_tokens: got " + llm.maxTotalTokens() + ", expected >= 0 (0 for no limit)");
    }
    if (!(llm.maxFailureFraction() >= 0 && llm.maxFailureFraction() <= 1)) {
      problems.add(
          "llm.max_failure_fraction: got "
              + llm.maxFailureFraction()
              + ", expected a fraction in 0..1");
    }
    if (llm.rowsPerTask() < 1) {
      problems.add("llm.rows_per_task: got " + llm.rowsPerTask() + ", expected an integer >= 1");
    }
    if (!java.util.List.of("chunk", "document").contains(genQa.unit())) {
      problems.add("gen_qa.unit: got " + genQa.unit() + ", expected chunk or document");
    }
    if (genQa.pairsPerUnit() < 1) {
      problems.add(
          "gen_qa.pairs_per_unit: got " + genQa.pairsPerUnit() + ", expected an integer >= 1");
    }
    for (String kind : genDocs.kinds()) {
      if (!java.util.List.of("rephrase", "entity", "focal").contains(kind)) {
        problems.add("gen_docs.kinds: got " + kind + ", expected rephrase, entity or focal");
      }
    }
    for (String style : genDocs.rephraseStyles()) {
      if (!java.util.List.of("simple", "encyclopedic", "terse", "qa_dialogue").contains(style)) {
        problems.add(
            "gen_docs.rephrase_styles: got "
                + style
                + ", expected simple, encyclopedic, terse or qa_dialogue");
      }
    }
    if (genDocs.questionsPerFocal() < 1) {
      problems.add(
          "gen_docs.questions_per_focal: got "
              + genDocs.questionsPerFocal()
              + ", expected an integer >= 1");
    }
    String deviceProblem = dev.infuse.udfs.model.Devices.problem(llm.device());
    if (deviceProblem != null) {
      problems.add("llm." + deviceProblem);
    }
    problems.addAll(trainProblems());
    problems.addAll(shardsProblems());
    problems.addAll(reportProblems());
    problems.addAll(scoreProblems());
    problems.addAll(answerProblems());
    problems.addAll(retrievalProblems());
    problems.addAll(evaluateProblems());
    return problems;
  }

  private List<String> evaluateProblems() {
    List<String> problems = new ArrayList<>();
    java.util.List<String> settings =
        java.util.List.of("closed_book", "rag", "trained", "trained_rag");
    java.util.List<String> benchmarks = dev.infuse.udfs.answer.PromptFormats.benchmarks();
    for (String benchmark : evaluate.benchmarks()) {
      if (!benchmarks.contains(benchmark)) {
        problems.add(
            "evaluate.benchmarks: got "
                + benchmark
                + ", expected one of "
                + String.join(", ", benchmarks));
      }
    }
    for (String setting : evaluate.settings()) {
      if (!settings.contains(setting)) {
        problems.add(
            "evaluate.settings: got "
                + setting
                + ", expected closed_book, rag, trained or trained_rag");
      }
    }
    if (evaluate.settings().size() != new java.util.HashSet<>(evaluate.settings()).size()) {
      problems.add(
          "evaluate.settings: got " + evaluate.settings() + ", expected each setting once");
    }
    for (String model : evaluate.models()) {
      if (model == null || model.isBlank()) {
        problems.add(
            "evaluate.models: got an empty entry in "
                + evaluate.models()
                + ", expected model directories");
      }
    }
    for (java.util.List<String> pair : evaluate.compare()) {
      if (pair.size() != 2 || pair.get(0).equals(pair.get(1))) {
        problems.add(
            "evaluate.compare: got pair "
                + pair
                + ", expected two different settings [a, b] in each pair");
      } else if (!settings.containsAll(pair)) {
        problems.add(
            "evaluate.compare: got pair "
                + pair
                + ", expected settings among closed_book, rag, trained,"
                + " trained_rag");
      }
    }
    return problems;
  }

  private List<String> shardsProblems() {
    List<String> problems = new ArrayList<>();
    if (shards.mixture() == null || shards.mixture().isBlank()) {
      problems.add(
          "shards.mixture: got nothing, expected a mixture file such as conf/mixtures/smt-mixed.yaml");
    }
    if (shards.formats().isEmpty()) {
      problems.add("shards.formats: got [], expected one or more of parquet, jsonl, megatron");
    }
    for (String format : shards.formats()) {
      if (!java.util.List.of("parquet", "jsonl", "megatron").contains(format)) {
        problems.add("shards.formats: got " + format + ", expected parquet, jsonl or megatron");
      }
    }
    if (shards.sequenceLength() < 2) {
      problems.add(
          "shards.sequence_length: got " + shards.sequenceLength() + ", expected an integer >= 2");
    }
    if (shards.totalTokens() != null && shards.totalTokens() < 0) {
      problems.add(
          "shards.total_tokens: got "
              + shards.totalTokens()
              + ", expected >= 0 (0: every token once), or null");
    }
    if (shards.tokensPerShard() < shards.sequenceLength()) {
      problems.add(
          "shards.tokens_per_shard: got "
              + shards.tokensPerShard()
              + ", expected at least sequence_length ("
              + shards.sequenceLength()
              + ")");
    }
    if (shards.tokenizer() == null || shards.tokenizer().isBlank()) {
      problems.add(
          "shards.tokenizer: got nothing, expected 'default' or the path of a tokenizer.json");
    }
    shards
        .dedup()
        .settings()
        .problems()
        .forEach(problem -> problems.add("shards.dedup." + problem));
    ShardDecontaminationConfig decontamination = shards.decontamination();
    if (!java.util.List.of("remove_span", "drop_row").contains(decontamination.mode())) {
      problems.add(
          "shards.decontamination.mode: got "
              + decontamination.mode()
              + ", expected remove_span or drop_row");
    }
    if (decontamination.ngramWords() < 1) {
      problems.add(
          "shards.decontamination.ngram_words: got "
              + decontamination.ngramWords()
              + ", expected >= 1");
    }
    if (decontamination.minShortWords() < 1
        || decontamination.minShortWords() > decontamination.ngramWords()) {
      problems.add(
          "shards.decontamination.min_short_words: got "
              + decontamination.minShortWords()
              + ", expected 1.."
              + decontamination.ngramWords()
              + " (at most ngram_words)");
    }
    if (decontamination.marginChars() < 0) {
      problems.add(
          "shards.decontamination.margin_chars: got "
              + decontamination.marginChars()
              + ", expected >= 0");
    }
    return problems;
  }

  private List<String> reportProblems() {
    List<String> problems = new ArrayList<>();
    if (report.output() != null && report.output().isBlank()) {
      problems.add(
          "report.output: got an empty string, expected a directory or URI, or null for reports/<score run id>");
    }
    if (report.title() == null || report.title().isBlank()) {
      problems.add("report.title: got nothing, expected a title");
    }
    for (String id : report.scoreRuns()) {
      if (id == null || id.isBlank()) {
        problems.add(
            "report.score_runs: got an empty id, expected score run ids, or [all], or [] for the latest");
      }
    }
    for (String id : report.retrieveRuns()) {
      if (id == null || id.isBlank()) {
        problems.add(
            "report.retrieve_runs: got an empty id, expected retrieve run ids, or [all], or [] for the latest");
      }
    }
    return problems;
  }

  private List<String> scoreProblems() {
    List<String> problems = new ArrayList<>();
    if (score.bootstrapResamples() < 100) {
      problems.add(
          "score.bootstrap_resamples: got "
              + score.bootstrapResamples()
              + ", expected an integer >= 100");
    }
    if (!(score.confidence() > 0 && score.confidence() < 1)) {
      problems.add(
          "score.confidence: got "
              + score.confidence()
              + ", expected a fraction strictly between 0 and 1, e.g. 0.95");
    }
    if (!(score.numericTolerance() >= 0 && score.numericTolerance() < 1)) {
      problems.add(
          "score.numeric_tolerance: got "
              + score.numericTolerance()
              + ", expected a relative tolerance in [0, 1), e.g. 0.01");
    }
    if (!java.util.List.of("auto", "on", "off").contains(score.judge())) {
      problems.add("score.judge: got " + score.judge() + ", expected auto, on or off");
    }
    if (score.judgeMaxTokens() < 1) {
      problems.add(
          "score.judge_max_tokens: got " + score.judgeMaxTokens() + ", expected an integer >= 1");
    }
    for (java.util.List<String> pair : score.compare()) {
      if (pair.size() != 2 || pair.get(0).equals(pair.get(1))) {
        problems.add(
            "score.compare: got pair "
                + pair
                + ", expected two different run ids [a, b] in each pair:"
                + " [[a, b], ...], or []");
      }
    }
    if (!java.util.List.of("closed_book", "rag", "trained", "trained_rag")
        .contains(score.scalingSetting())) {
      problems.add(
          "score.scaling_setting: got "
              + score.scalingSetting()
              + ", expected closed_book, rag, trained or trained_rag");
    }
    if (score.scalingBaselineSetting() != null
        && !java.util.List.of("closed_book", "rag", "trained", "trained_rag")
            .contains(score.scalingBaselineSetting())) {
      problems.add(
          "score.scaling_baseline_setting: got "
              + score.scalingBaselineSetting()
              + ", expected closed_book, rag, trained, trained_rag or null");
    }
    if (!java.util.List.of("accuracy", "acc_norm").contains(score.scalingMetric())) {
      problems.add(
          "score.scaling_metric: got " + score.scalingMetric() + ", expected accuracy or acc_norm");
    }
    if (score.scalingRuns().size() == 1) {
      problems.add(
          "score.scaling_runs: got 1 run, expected 2 or more, or [] for every run of the sweep");
    }
    return problems;
  }

  private List<String> answerProblems() {
    List<String> problems = new ArrayList<>();
    List<String> settings = java.util.List.of("closed_book", "rag", "trained", "trained_rag");
    if (!settings.contains(answer.setting())) {
      problems.add(
          "answer.setting: got "
              + answer.setting()
              + ", expected one of "
              + String.join(", ", settings));
    }
    List<String> modes = java.util.List.of("auto", "generate", "loglikelihood", "embedding");
    if (!modes.contains(answer.mode())) {
      problems.add(
          "answer.mode: got " + answer.mode() + ", expected one of " + String.join(", ", modes));
    }
    if (!java.util.List.of("best_first", "best_last").contains(answer.chunkOrder())) {
      problems.add(
          "answer.chunk_order: got " + answer.chunkOrder() + ", expected best_first or best_last");
    }
    if (answer.k() < 1) {
      problems.add("answer.k: got " + answer.k() + ", expected an integer >= 1");
    }
    if (answer.maxTokens() < 1) {
      problems.add("answer.max_tokens: got " + answer.maxTokens() + ", expected an integer >= 1");
    }
    if (!(answer.temperature() >= 0)) {
      problems.add(
          "answer.temperature: got " + answer.temperature() + ", expected >= 0 (0 for greedy)");
    }
    if (answer.maxQuestions() < 0) {
      problems.add(
          "answer.max_questions: got " + answer.maxQuestions() + ", expected >= 0 (0 for all)");
    }
    return problems;
  }

  private List<String> retrievalProblems() {
    List<String> problems = new ArrayList<>();
    if (index.chunksPerShard() < 1) {
      problems.add(
          "index.chunks_per_shard: got " + index.chunksPerShard() + ", expected an integer >= 1");
    }
    if (!java.util.List.of("bm25", "dense", "hybrid").contains(retrieve.retriever())) {
      problems.add(
          "retrieve.retriever: got " + retrieve.retriever() + ", expected bm25, dense or hybrid");
    }
    if (retrieve.k() < 1) {
      problems.add("retrieve.k: got " + retrieve.k() + ", expected an integer >= 1");
    }
    if (!java.util.List.of("auto", "document", "corpus").contains(retrieve.scoping())) {
      problems.add(
          "retrieve.scoping: got " + retrieve.scoping() + ", expected auto, document or corpus");
    }
    if (retrieve.rrfK() < 0) {
      problems.add("retrieve.rrf_k: got " + retrieve.rrfK() + ", expected an integer >= 0");
    }
    if (retrieve.rrfDepth() < retrieve.k()) {
      problems.add(
          "retrieve.rrf_depth: got "
              + retrieve.rrfDepth()
              + ", expected an integer >= retrieve.k ("
              + retrieve.k()
              + ")");
    }
    for (Integer k : retrieve.recallKs()) {
      if (k == null || k < 1) {
        problems.add("retrieve.recall_ks: got " + k + ", expected integers >= 1");
      }
    }
    if (retrieve.maxQuestions() < 0) {
      problems.add(
          "retrieve.max_questions: got " + retrieve.maxQuestions() + ", expected >= 0 (0 for all)");
    }
    return problems;
  }

  private List<String> trainProblems() {
    List<String> problems = new ArrayList<>();
    for (String source : train.sources()) {
      if (!java.util.List.of("documents", "synthetic_docs", "synthetic_qa").contains(source)) {
        problems.add(
            "train.sources: got "
                + source
                + ", expected documents, synthetic_docs or synthetic_qa");
      }
    }
    if (train.sources().isEmpty() && train.shards() == null) {
      problems.add("train.sources: got [], expected at least one table, or train.shards");
    }
    if (train.modelDir() == null || train.modelDir().isBlank()) {
      problems.add("train.model_dir: got nothing, expected a directory for the model");
    }
    if (!java.util.List.of("all", "answer").contains(train.lossOn())) {
      problems.add("train.loss_on: got " + train.lossOn() + ", expected all or answer");
    }
    if (train.sequenceLength() < 2 || train.sequenceLength() > train.contextLength()) {
      problems.add(
          "train.sequence_length: got "
              + train.sequenceLength()
              + ", expected 2..context_length ("
              + train.contextLength()
              + ")");
    }
    String deviceProblem = dev.infuse.udfs.model.Devices.problem(train.device());
    if (deviceProblem != null) {
      problems.add("train." + deviceProblem);
    }
    return problems;
  }
}
