package dev.infuse.jobs.shards;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.size;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.when;

import dev.infuse.jobs.config.ConfigException;
import dev.infuse.jobs.config.ConfigJson;
import dev.infuse.jobs.config.InfuseHome;
import dev.infuse.jobs.contract.Contract;
import dev.infuse.jobs.contract.Contracts;
import dev.infuse.jobs.io.Quarantine;
import dev.infuse.jobs.io.TokenizerFiles;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.jobs.io.WriteResult;
import dev.infuse.jobs.run.JobRun;
import dev.infuse.jobs.run.RunCounts;
import dev.infuse.udfs.common.Keys;
import dev.infuse.udfs.mix.MixturePlanner;
import dev.infuse.udfs.mix.MixtureSpec;
import dev.infuse.udfs.mix.QaTemplate;
import dev.infuse.udfs.mix.SourcePlan;
import dev.infuse.udfs.text.TokenizerVocab;
import java.io.Serializable;
import java.net.URI;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;
import org.apache.spark.util.SerializableConfiguration;
import scala.Tuple2;

/**
 * {@code build-shards}: turns the warehouse's training texts into shards a trainer reads directly.
 *
 * <ol>
 *   <li>Read every source ({@link ShardSources}): synthetic_qa through {@link QaTemplate},
 *       documents, synthetic_docs by kind, and the optional replay corpus. A text's key is {@code
 *       <source>/<row_id>}.
 *   <li>Remove exact and near duplicates ({@link NearDuplicates}); drops go to {@code
 *       shard_dedup_drops}.
 *   <li>Decontaminate against the {@code questions} table ({@link Decontamination}); every hit goes
 *       to {@code decontamination_hits} with what it did. Quotes of a question's own document are
 *       exempt in its corpus; a cut text's clean pieces train as separate plain texts.
 *   <li>Tokenize on the executors; texts without a token go to quarantine.
 *   <li>Plan the mixture on the tokens left ({@link MixturePlanner}) and sample it statelessly
 *       ({@link SampledRows}): each repetition of a text gets a shard and a place in that shard's
 *       order.
 *   <li>Shuffle by shard, sort within shards, and write every format of a shard in one task ({@link
 *       ShardFilesTask}).
 *   <li>Check that what was written adds up to what was sampled, then write {@code info.json},
 *       {@code stats.json} and {@code COMPLETED} per format and the {@code shard_manifest} rows.
 * </ol>
 *
 * <p>The same inputs and config give byte-identical shards: nothing depends on partitioning, task
 * order or time. A rebuild into the same output replaces its shards, manifest, drops and hits.
 */
public final class BuildShardsJob {
  public static final String NAME = "build-shards";

  private final JobRun run;
  private final ShardsConfig options;

  public BuildShardsJob(JobRun run) {
    this.run = run;
    this.options = run.config().section(ShardsConfig.class);
  }

  public RunCounts run() {
    Plan plan = plan();
    if (upToDate(plan)) {
      run.out()
          .printf(
              Locale.ROOT,
              "build-shards: %s is up to date (config %s, same input table versions); nothing to"
                  + " write%n",
              plan.output().uri(),
              plan.configHash().substring(0, 12));
      run.out().flush();
      long read =
          ShardSources.read(run.spark(), run.warehouse(), options.corpus(), options.replay())
              .count();
      return new RunCounts(read, read, 0, Map.of("up_to_date", 1L));
    }
    // What the phases hold in memory until the build ends, whether it ends well or not.
    List<Runnable> release = new ArrayList<>();
    try {
      Cleaned cleaned = clean(plan, release);
      Tokenized tokenized = tokenize(plan, cleaned, release);
      Sample sample = sample(plan, tokenized);
      List<ShardFilesTask.Written> written = write(plan, sample);
      SyntheticTokenCounts counts = countSynthetic(plan, tokenized, sample);
      return publish(plan, cleaned, tokenized, sample, written, counts);
    } finally {
      release.forEach(Runnable::run);
    }
  }

  /**
   * What this build is: the mixture, the tokenizer and the output, and the hash of all that, which
   * {@code COMPLETED} records. Fails on a bad mixture or tokenizer before anything is read.
   */
  private record Plan(
      MixtureSpec mixture,
      byte[] tokenizerJson,
      String tokenizerSha,
      TokenizerVocab vocab,
      byte[] countTokenizerJson,
      ShardOutput output,
      String configHash,
      Dataset<Row> questions) {}

  private Plan plan() {
    MixtureSpec mixture = mixture();
    byte[] tokenizerJson =
        TokenizerFiles.read(run.spark(), options.tokenizer(), "shards.tokenizer");
    String tokenizerSha = HexFormat.of().formatHex(Keys.sha256(tokenizerJson));
    byte[] countTokenizerJson =
        options.countTokenizer() == null
            ? tokenizerJson
            : TokenizerFiles.read(run.spark(), options.countTokenizer(), "shards.count_tokenizer");
    String configHash =
        Keys.sha256Hex(
            ConfigJson.canonical(options),
            ConfigJson.canonical(mixture),
            tokenizerSha,
            HexFormat.of().formatHex(Keys.sha256(countTokenizerJson)));
    return new Plan(
        mixture,
        tokenizerJson,
        tokenizerSha,
        TokenizerVocab.of(tokenizerJson),
        countTokenizerJson,
        new ShardOutput(outputUri(mixture)),
        configHash,
        options.decontamination().enabled() ? questions(run.warehouse()) : null);
  }

  /**
   * The texts after exact and near-duplicate removal and decontamination.
   *
   * @param readBySource texts read per source, before cleaning
   * @param kept the texts left, keyed {@code <source>/<row_id>}
   * @param drops dedup's drops (empty when dedup is off)
   * @param hits decontamination's hits (empty when it is off)
   * @param decontaminationOutcomes rows per (source, outcome) of the scan; null when it is off
   */
  private record Cleaned(
      Map<String, Long> readBySource,
      Dataset<Row> kept,
      Dataset<Row> drops,
      Dataset<Row> hits,
      Dataset<Row> decontaminationOutcomes) {
    long read() {
      return readBySource.values().stream().mapToLong(Long::longValue).sum();
    }
  }

  private Cleaned clean(Plan plan, List<Runnable> release) {
    SparkSession spark = run.spark();
    // Dedup and decontamination key rows by row_id: here the source-qualified key, unique across
    // sources.
    Dataset<Row> texts =
        persist(
            release,
            ShardSources.read(spark, run.warehouse(), options.corpus(), options.replay())
                .select(
                    concat(col("source"), lit("/"), col("row_id")).as("row_id"),
                    col("row_id").as("source_row_id"),
                    col("source"),
                    col("doc_id"),
                    col("prompt"),
                    col("completion"),
                    col("text")));
    Map<String, Long> readBySource = countBySource(texts);
    requireSourcesForShares(plan.mixture(), readBySource);

    Dataset<Row> drops = spark.createDataFrame(List.of(), NearDuplicates.DROPS_SCHEMA);
    Dataset<Row> kept = texts;
    if (options.dedup().enabled()) {
      NearDuplicates.Result dedup = new NearDuplicates(options.dedup().settings()).apply(texts);
      release.add(dedup::close);
      kept = dedup.kept();
      drops = dedup.drops();
    }
    Dataset<Row> hits = spark.createDataFrame(List.of(), Decontamination.HITS_SCHEMA);
    Dataset<Row> decontaminationOutcomes = null;
    if (plan.questions() != null) {
      Decontamination.Result decontamination =
          Decontamination.apply(
              kept,
              plan.questions(),
              // Where the questions' quotes of their own source document are found.
              run.warehouse().exists("documents") ? run.warehouse().read("documents") : null,
              options.decontamination().settings());
      Dataset<Row> scanned = persist(release, decontamination.scanned());
      decontaminationOutcomes =
          scanned.groupBy(col("source"), col(DecontaminationRows.OUTCOME)).count();
      hits = decontamination.hits();
      kept = decontamination.cleaned();
    }
    return new Cleaned(readBySource, kept, drops, hits, decontaminationOutcomes);
  }

  /**
   * The cleaned texts as token ids, tokenized on the executors.
   *
   * @param good texts with tokens: source, row_id, ids and their answer mask
   * @param deadLetters texts without a token, bound for quarantine
   * @param rowsBySource texts with tokens per source
   * @param available tokens per source, each text's EOS included: what the mixture is planned on
   */
  private record Tokenized(
      Dataset<Row> good,
      Dataset<Row> deadLetters,
      Map<String, Long> rowsBySource,
      Map<String, Long> available) {}

  private Tokenized tokenize(Plan plan, Cleaned cleaned, List<Runnable> release) {
    SparkSession spark = run.spark();
    // A shortened QA text no longer splits into its question and answer: it trains as one plain
    // text.
    Dataset<Row> intact =
        cleaned
            .kept()
            .withColumn(
                "intact",
                col("text").equalTo(concat(coalesce(col("prompt"), lit("")), col("completion"))));
    Dataset<Row> toTokenize =
        intact.select(
            col("source"),
            col("source_row_id").as("row_id"),
            when(col("intact"), col("prompt")).as("prompt"),
            when(col("intact"), col("completion")).otherwise(col("text")).as("completion"));
    Dataset<Row> tokenized =
        persist(
            release,
            spark.createDataFrame(
                toTokenize
                    .javaRDD()
                    .mapPartitions(
                        new TrainingTextRows(
                            new JavaSparkContext(spark.sparkContext())
                                .broadcast(plan.tokenizerJson()),
                            true)),
                TrainingTextRows.SCHEMA));
    Dataset<Row> good = tokenized.filter(col("reason").isNull());
    Dataset<Row> deadLetters =
        Quarantine.deadLetters(
            tokenized.filter(col("reason").isNotNull()),
            col("source"),
            concat(lit("row_id="), col("row_id")),
            col("text"),
            col("reason"));
    Map<String, Long> available = new TreeMap<>();
    Map<String, Long> rowsBySource = new TreeMap<>();
    for (Row row :
        good.groupBy("source").agg(count(lit(1)), sum(size(col("ids")).plus(1))).collectAsList()) {
      rowsBySource.put(row.getString(0), row.getLong(1));
      available.put(row.getString(0), row.getLong(2));
    }
    return new Tokenized(good, deadLetters, rowsBySource, available);
  }

  /**
   * The mixture planned on the tokens available, and its stateless sample: each repetition of a
   * text gets a shard and a place in that shard's order.
   *
   * @param sources each source's budget, epochs and shortfall
   * @param shards how many shards of about {@code shards.tokens_per_shard} tokens
   * @param expected per source, [texts, tokens] the sample holds: what the written shards must hold
   */
  private record Sample(
      Map<String, SourcePlan> sources,
      int shards,
      JavaPairRDD<ShardOrder, ShardText> rows,
      Map<String, long[]> expected) {}

  private Sample sample(Plan plan, Tokenized tokenized) {
    Map<String, SourcePlan> sources;
    try {
      sources = MixturePlanner.plan(plan.mixture(), tokenized.available());
    } catch (IllegalArgumentException e) {
      throw new ConfigException(
          List.of(
              "shards.mixture: "
                  + e.getMessage()
                  + " (tokens available after dedup and"
                  + " decontamination: "
                  + tokenized.available()
                  + ")"));
    }
    Map<String, Double> epochs = new TreeMap<>();
    long plannedTokens = 0;
    for (SourcePlan source : sources.values()) {
      epochs.put(source.source(), source.epochs());
      plannedTokens += Math.round(source.epochs() * source.availableTokens());
    }
    int shards =
        (int)
            Math.max(
                1,
                Math.min(
                    Integer.MAX_VALUE,
                    (plannedTokens + options.tokensPerShard() - 1) / options.tokensPerShard()));
    JavaPairRDD<ShardOrder, ShardText> rows =
        tokenized
            .good()
            .javaRDD()
            .flatMapToPair(
                new SampledRows(
                    plan.mixture().seed(),
                    epochs,
                    shards,
                    options.formats().contains(ShardFormat.JSONL)));
    return new Sample(sources, shards, rows, sampledBySource(rows));
  }

  /**
   * The sample's synthetic tokens, unique and seen, per generator, in {@code
   * shards.count_tokenizer} ({@link SyntheticTokenCounts}).
   */
  private SyntheticTokenCounts countSynthetic(Plan plan, Tokenized tokenized, Sample sample) {
    Map<String, Double> epochs = new TreeMap<>();
    sample.sources().values().forEach(source -> epochs.put(source.source(), source.epochs()));
    Map<String, Long> expectedTexts = new TreeMap<>();
    sample.expected().forEach((source, counts) -> expectedTexts.put(source, counts[0]));
    return SyntheticTokenCounts.count(
        run.spark(),
        tokenized.good(),
        ShardSources.read(run.spark(), run.warehouse(), options.corpus(), null)
            .filter(col("source").startsWith("synthetic_")),
        plan.mixture().seed(),
        epochs,
        options.countTokenizerOrShard(),
        plan.countTokenizerJson(),
        expectedTexts);
  }

  /**
   * Clears what a previous build left, writes every format of a shard in one task, and checks that
   * the files hold exactly the sample.
   */
  private List<ShardFilesTask.Written> write(Plan plan, Sample sample) {
    plan.output().clear(options.formats(), run.spark().sparkContext().hadoopConfiguration());
    ShardFilesTask.Spec spec =
        new ShardFilesTask.Spec(
            plan.output(),
            options.formats(),
            sample.shards(),
            options.sequenceLength(),
            options.pack(),
            plan.vocab().size(),
            plan.vocab().eosId(),
            plan.vocab().padId());
    // Tasks upload to a remote output with the session's Hadoop settings (s3a endpoint,
    // credentials), which a fresh Configuration on an executor does not have.
    Broadcast<SerializableConfiguration> hadoop =
        new JavaSparkContext(run.spark().sparkContext())
            .broadcast(
                new SerializableConfiguration(run.spark().sparkContext().hadoopConfiguration()));
    List<ShardFilesTask.Written> written =
        new ArrayList<>(
            sample
                .rows()
                .repartitionAndSortWithinPartitions(
                    new ShardOrder.ByShard(sample.shards()), naturalOrder())
                .mapPartitionsWithIndex(new ShardFilesTask(spec, hadoop), false)
                .collect());
    // By format name, then shard: the order of the manifest and of info.json's formats.
    written.sort(
        Comparator.comparing((ShardFilesTask.Written w) -> w.format().id())
            .thenComparingInt(ShardFilesTask.Written::shard));
    reconcile(written, sample.expected(), sample.shards());
    return written;
  }

  /**
   * Makes the build known: quarantine, the drops, hits and manifest tables, then {@code info.json},
   * {@code stats.json} and, last, {@code COMPLETED}.
   */
  private RunCounts publish(
      Plan plan,
      Cleaned cleaned,
      Tokenized tokenized,
      Sample sample,
      List<ShardFilesTask.Written> written,
      SyntheticTokenCounts syntheticCounts) {
    Warehouse warehouse = run.warehouse();
    ShardOutput output = plan.output();
    long quarantined = tokenized.deadLetters().count();
    WriteResult quarantineWrite = run.quarantine(tokenized.deadLetters(), quarantined);
    long[] dedupCounts = dedupCounts(cleaned.drops());
    replaceOutputRows(
        warehouse,
        "shard_dedup_drops",
        output,
        cleaned
            .drops()
            .select(
                lit(output.uri()).as("output"),
                col("row_id").as("row_key"),
                ShardBuildStats.sourceOf(col("row_id")).as("source"),
                col("kept_row_id").as("kept_row_key"),
                col("reason"),
                col("similarity"),
                lit(run.runId()).as("run_id")));
    replaceOutputRows(
        warehouse,
        "decontamination_hits",
        output,
        cleaned
            .hits()
            .select(
                lit(output.uri()).as("output"),
                col("row_id").as("row_key"),
                ShardBuildStats.sourceOf(col("row_id")).as("source"),
                col("question_id"),
                col("ngram"),
                col("char_start"),
                col("char_end"),
                col("action"),
                lit(run.runId()).as("run_id")));
    WriteResult manifestWrite =
        replaceOutputRows(
            warehouse, "shard_manifest", output, manifest(plan, written, sample.shards()));

    var hadoop = run.spark().sparkContext().hadoopConfiguration();
    output.writeText(ShardBuildInfo.FILE, info(plan, written, syntheticCounts).toJson(), hadoop);
    output.writeText(
        ShardBuildStats.FILE,
        ShardBuildInfo.json(
            ShardBuildStats.of(
                plan.configHash(),
                cleaned.readBySource(),
                cleaned.drops(),
                cleaned.decontaminationOutcomes(),
                tokenized.rowsBySource(),
                sample.sources(),
                sample.expected(),
                written)),
        hadoop);
    // Last: whoever finds COMPLETED finds every shard and summary of this build.
    output.writeText(ShardOutput.COMPLETED, plan.configHash() + "\n", hadoop);

    long read = cleaned.read();
    long hits = cleaned.hits().count();
    Map<String, Long> details = new LinkedHashMap<>();
    cleaned.readBySource().forEach((source, n) -> details.put("read." + source, n));
    details.put("dedup.exact", dedupCounts[0]);
    details.put("dedup.near", dedupCounts[1]);
    details.put("decontamination.hits", hits);
    details.put("quarantined", quarantined);
    sample.expected().forEach((source, counts) -> details.put("tokens." + source, counts[1]));
    details.put("shards", (long) sample.shards());
    details.put("synthetic_tokens.unique", syntheticCounts.unique());
    details.put("synthetic_tokens.seen", syntheticCounts.seen());
    details.put("shard_manifest.inserted", manifestWrite.inserted());
    details.put("quarantine.inserted", quarantineWrite.inserted());
    report(plan, read, dedupCounts, hits, quarantined, sample, written, syntheticCounts);
    return new RunCounts(read, read - quarantined, quarantined, details);
  }

  /**
   * The mixture file, with {@code shards.seed} and {@code shards.total_tokens} over its own when
   * set.
   */
  private MixtureSpec mixture() {
    MixtureSpec spec;
    try {
      spec = MixtureFiles.read(InfuseHome.resolve(options.mixture()));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(List.of("shards.mixture: " + e.getMessage()));
    }
    if (options.seed() == null && options.totalTokens() == null) {
      return spec;
    }
    return new MixtureSpec(
        spec.name(),
        spec.version(),
        options.totalTokens() == null ? spec.totalTokens() : options.totalTokens(),
        spec.qaFraction(),
        spec.replayFraction(),
        spec.documentWeights(),
        spec.maxEpochs(),
        options.seed() == null ? spec.seed() : options.seed());
  }

  /**
   * Fails before any heavy stage when a mixture with a token target gives a share to a source with
   * no rows at all (without a target the shares are not applied).
   */
  private static void requireSourcesForShares(MixtureSpec mixture, Map<String, Long> readBySource) {
    if (mixture.totalTokens() == 0) {
      return;
    }
    List<String> problems = new ArrayList<>();
    mixture
        .shares()
        .forEach(
            (source, share) -> {
              if (share > 0 && readBySource.getOrDefault(source, 0L) == 0) {
                problems.add(
                    String.format(
                        Locale.ROOT,
                        "source %s: empty, but mixture %s gives it a share of %.4f; expected"
                            + " rows in it (run the job that writes it%s), or a share of 0",
                        source,
                        mixture.name(),
                        share,
                        source.equals(MixtureSpec.REPLAY) ? ", or set shards.replay" : ""));
              }
            });
    if (!problems.isEmpty()) {
      throw new ConfigException(problems.stream().map(p -> "shards.mixture: " + p).toList());
    }
  }

  /**
   * {@code shards.output}, absolute, or resolved against the warehouse; null means shards/<mixture
   * name>.
   */
  private String outputUri(MixtureSpec mixture) {
    String output = options.output() == null ? "shards/" + mixture.name() : options.output();
    String normalized = output.replace('\\', '/');
    if (normalized.startsWith("/") || URI.create(normalized).getScheme() != null) {
      return output;
    }
    String warehouse = run.warehouse().root();
    String root =
        URI.create(warehouse.replace('\\', '/')).getScheme() == null
            ? java.nio.file.Path.of(warehouse).toAbsolutePath().normalize().toString()
            : warehouse;
    return (root.endsWith("/") ? root : root + "/") + output;
  }

  private Dataset<Row> questions(Warehouse warehouse) {
    if (!warehouse.exists("questions")) {
      throw new ConfigException(
          List.of(
              "shards.decontamination.enabled: true, but the warehouse "
                  + warehouse.root()
                  + " has no questions table; expected benchmark questions to decontaminate against (run ingest), or"
                  + " shards.decontamination.enabled=false to build without decontamination"));
    }
    Dataset<Row> questions = warehouse.read("questions");
    List<String> benchmarks = options.decontamination().benchmarks();
    if (!benchmarks.isEmpty()) {
      questions = questions.filter(col("benchmark").isin(benchmarks.toArray()));
      if (questions.isEmpty()) {
        throw new ConfigException(
            List.of(
                "shards.decontamination.benchmarks: got "
                    + benchmarks
                    + ", but questions has"
                    + " none of them; expected benchmarks present in questions, or [] for all"));
      }
    }
    return questions;
  }

  /**
   * Per source: [documents, tokens] the sample holds, counted apart from the writers, to check
   * them.
   */
  private static Map<String, long[]> sampledBySource(JavaPairRDD<ShardOrder, ShardText> sampled) {
    Map<String, long[]> bySource = new TreeMap<>();
    sampled
        .mapToPair(
            pair -> new Tuple2<>(pair._1().source(), new long[] {1, pair._2().ids().length + 1L}))
        .reduceByKey((a, b) -> new long[] {a[0] + b[0], a[1] + b[1]})
        .collect()
        .forEach(pair -> bySource.put(pair._1(), pair._2()));
    return bySource;
  }

  /**
   * Fails unless every format holds exactly the sampled texts and tokens, source by source, and the
   * packed Parquet sequences hold those tokens plus their padding.
   */
  private void reconcile(
      List<ShardFilesTask.Written> written, Map<String, long[]> expected, int shards) {
    List<String> problems = new ArrayList<>();
    for (ShardFormat format : options.formats()) {
      List<ShardFilesTask.Written> files =
          written.stream().filter(w -> w.format() == format).toList();
      if (files.size() != shards) {
        problems.add(format + ": " + files.size() + " shard(s) written, expected " + shards);
      }
      Map<String, Long> tokens = new TreeMap<>();
      long documents = 0;
      for (ShardFilesTask.Written file : files) {
        file.composition().forEach((source, n) -> tokens.merge(source, n, Long::sum));
        documents += file.documents();
        if (format == ShardFormat.PARQUET
            && file.sequences() * options.sequenceLength()
                != file.tokens() + file.paddingTokens()) {
          problems.add(
              "parquet shard "
                  + file.shard()
                  + ": "
                  + file.sequences()
                  + " sequences of "
                  + options.sequenceLength()
                  + " tokens, expected "
                  + file.tokens()
                  + " tokens + "
                  + file.paddingTokens()
                  + " padding");
        }
      }
      Map<String, Long> expectedTokens = new TreeMap<>();
      expected.forEach((source, counts) -> expectedTokens.put(source, counts[1]));
      long expectedDocuments = expected.values().stream().mapToLong(c -> c[0]).sum();
      if (!tokens.equals(expectedTokens) || documents != expectedDocuments) {
        problems.add(
            format
                + ": wrote "
                + documents
                + " texts with tokens "
                + tokens
                + ", expected "
                + expectedDocuments
                + " texts with tokens "
                + expectedTokens);
      }
    }
    if (!problems.isEmpty()) {
      throw new IllegalStateException(
          "build-shards: the shards do not reconcile with the sample: "
              + String.join("; ", problems));
    }
  }

  private Dataset<Row> manifest(Plan plan, List<ShardFilesTask.Written> written, int shards) {
    MixtureSpec mixture = plan.mixture();
    Contract contract = Contracts.load("shard_manifest");
    List<Row> rows = new ArrayList<>();
    for (ShardFilesTask.Written w : written) {
      List<Row> files =
          w.files().stream().map(f -> RowFactory.create(f.name(), f.bytes(), f.sha256())).toList();
      rows.add(
          RowFactory.create(
              plan.output().uri(),
              w.format().id(),
              w.shard(),
              shards,
              files,
              w.sequences(),
              w.documents(),
              w.tokens(),
              w.paddingTokens(),
              w.composition(),
              mixture.name() + "@" + mixture.version(),
              mixture.seed(),
              options.tokenizer(),
              plan.tokenizerSha(),
              options.sequenceLength(),
              options.pack(),
              plan.configHash(),
              run.runId()));
    }
    return run.spark().createDataFrame(rows, contract.schema());
  }

  /**
   * Replaces this output's rows of {@code table} with {@code rows}: a rebuild that drops fewer
   * texts must not leave the old drops behind, so an empty result deletes them too.
   */
  private WriteResult replaceOutputRows(
      Warehouse warehouse, String table, ShardOutput output, Dataset<Row> rows) {
    Contract contract = Contracts.load(table);
    if (!rows.isEmpty()) {
      return warehouse.replaceWithin(contract, rows, "output");
    }
    if (!warehouse.exists(table)) {
      return WriteResult.unchanged(table);
    }
    return warehouse.deleteKeys(
        contract,
        warehouse
            .read(table)
            .filter(col("output").equalTo(output.uri()))
            .select(contract.primaryKey().stream().map(c -> col(c)).toArray(Column[]::new)));
  }

  private static long[] dedupCounts(Dataset<Row> drops) {
    long[] counts = new long[2];
    for (Row row : drops.groupBy("reason").count().collectAsList()) {
      counts[row.getString(0).equals(NearDuplicates.EXACT) ? 0 : 1] = row.getLong(1);
    }
    return counts;
  }

  /**
   * The build's {@code info.json}: the plan, the cleaning settings, and per format its directory,
   * layout and shards; the composition and synthetic tokens are the formats' common content.
   */
  private ShardBuildInfo info(
      Plan plan, List<ShardFilesTask.Written> written, SyntheticTokenCounts counts) {
    Map<String, ShardBuildInfo.FormatInfo> formats = new LinkedHashMap<>();
    for (ShardFormat format :
        written.stream().map(ShardFilesTask.Written::format).distinct().toList()) {
      List<ShardBuildInfo.ShardInfo> shards =
          written.stream()
              .filter(w -> w.format() == format)
              .map(
                  w ->
                      new ShardBuildInfo.ShardInfo(
                          w.shard(),
                          w.files(),
                          w.sequences(),
                          w.documents(),
                          w.tokens(),
                          w.paddingTokens()))
              .toList();
      formats.put(
          format.id(),
          new ShardBuildInfo.FormatInfo(plan.output().formatUri(format), format.layout(), shards));
    }
    Map<String, Long> composition = new TreeMap<>();
    written.stream()
        .filter(w -> w.format() == written.get(0).format())
        .forEach(
            w -> w.composition().forEach((source, n) -> composition.merge(source, n, Long::sum)));
    long syntheticTokens =
        composition.entrySet().stream()
            .filter(e -> e.getKey().startsWith("synthetic_"))
            .mapToLong(Map.Entry::getValue)
            .sum();
    return new ShardBuildInfo(
        run.runId(),
        plan.configHash(),
        plan.mixture(),
        plan.mixture().seed(),
        options.tokenizer(),
        plan.tokenizerSha(),
        plan.vocab().size(),
        plan.vocab().eosId(),
        plan.vocab().padId(),
        options.sequenceLength(),
        options.pack(),
        QaTemplate.ID,
        options.dedup(),
        options.decontamination(),
        inputVersions(run.warehouse()),
        formats,
        composition,
        syntheticTokens,
        counts);
  }

  private void report(
      Plan plan,
      long read,
      long[] dedupCounts,
      long hits,
      long quarantined,
      Sample sample,
      List<ShardFilesTask.Written> written,
      SyntheticTokenCounts counts) {
    var out = run.out();
    MixtureSpec mixture = plan.mixture();
    out.printf(
        Locale.ROOT,
        "build-shards: mixture %s@%d, seed %d, %d text(s) read%n",
        mixture.name(),
        mixture.version(),
        mixture.seed(),
        read);
    out.printf(
        Locale.ROOT,
        "  dedup: %d exact and %d near duplicate(s) dropped (shard_dedup_drops)%n",
        dedupCounts[0],
        dedupCounts[1]);
    out.printf(
        Locale.ROOT,
        "  decontamination: %d hit(s) (decontamination_hits)%s%n",
        hits,
        options.decontamination().enabled() ? "" : " (disabled)");
    out.printf(Locale.ROOT, "  %d quarantined (no token)%n", quarantined);
    out.printf(
        Locale.ROOT,
        "  %-26s %12s %12s %8s %12s%n",
        "source",
        "available",
        "budget",
        "epochs",
        "sampled");
    for (SourcePlan p : sample.sources().values()) {
      if (p.availableTokens() == 0 && p.budgetTokens() == 0) {
        continue;
      }
      out.printf(
          Locale.ROOT,
          "  %-26s %12d %12d %8.2f %12d%n",
          p.source(),
          p.availableTokens(),
          p.budgetTokens(),
          p.epochs(),
          sample.expected().getOrDefault(p.source(), new long[2])[1]);
    }
    out.printf(
        Locale.ROOT,
        "  synthetic tokens in %s: %d unique (%d distinct texts), %d seen with repetitions%n",
        counts.tokenizer(),
        counts.unique(),
        counts.texts(),
        counts.seen());
    counts
        .byGenerator()
        .forEach(
            (generator, c) ->
                out.printf(
                    Locale.ROOT,
                    "    generator %s: %d unique, %d seen%n",
                    generator,
                    c.unique(),
                    c.seen()));
    for (ShardFormat format : options.formats()) {
      List<ShardFilesTask.Written> files =
          written.stream().filter(w -> w.format() == format).toList();
      out.printf(
          Locale.ROOT,
          "  %-8s %d shard(s), %d sequence(s), %d token(s) -> %s%n",
          format,
          files.size(),
          files.stream().mapToLong(ShardFilesTask.Written::sequences).sum(),
          files.stream().mapToLong(ShardFilesTask.Written::tokens).sum(),
          plan.output().formatUri(format));
    }
    out.flush();
  }

  /**
   * The Delta versions of the tables a build reads (and the replay table's, when replay names one).
   */
  private Map<String, Long> inputVersions(Warehouse warehouse) {
    Map<String, Long> versions = new TreeMap<>();
    List<String> tables =
        new ArrayList<>(List.of("documents", "synthetic_qa", "synthetic_docs", "questions"));
    if (options.replay() != null && warehouse.exists(options.replay())) {
      tables.add(options.replay());
    }
    for (String table : tables) {
      if (warehouse.exists(table)) {
        versions.put(table, warehouse.version(table));
      }
    }
    return versions;
  }

  /**
   * Whether {@code output} already holds a finished build of this config over these table versions:
   * then a rerun has nothing to write. A replay corpus given as a path is never known to be
   * unchanged.
   */
  private boolean upToDate(Plan plan) {
    Warehouse warehouse = run.warehouse();
    if (options.replay() != null && !warehouse.exists(options.replay())) {
      return false;
    }
    var hadoop = run.spark().sparkContext().hadoopConfiguration();
    String completed = plan.output().readText(ShardOutput.COMPLETED, hadoop);
    String text = plan.output().readText(ShardBuildInfo.FILE, hadoop);
    if (completed == null || text == null || !completed.trim().equals(plan.configHash())) {
      return false;
    }
    ShardBuildInfo built = ShardBuildInfo.parse(text);
    return built != null && inputVersions(warehouse).equals(built.inputTableVersions());
  }

  private static Map<String, Long> countBySource(Dataset<Row> texts) {
    Map<String, Long> counts = new TreeMap<>();
    for (Row row : texts.groupBy("source").count().collectAsList()) {
      counts.put(row.getString(0), row.getLong(1));
    }
    return counts;
  }

  private static Dataset<Row> persist(List<Runnable> release, Dataset<Row> dataset) {
    dataset.persist(StorageLevel.MEMORY_AND_DISK());
    release.add(dataset::unpersist);
    return dataset;
  }

  @SuppressWarnings("unchecked")
  private static Comparator<ShardOrder> naturalOrder() {
    return (Comparator<ShardOrder> & Serializable) ShardOrder::compareTo;
  }
}
