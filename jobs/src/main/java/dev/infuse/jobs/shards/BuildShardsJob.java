package dev.infuse.jobs.shards;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.size;
import static org.apache.spark.sql.functions.substring_index;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.when;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.infuse.jobs.InfuseHome;
import dev.infuse.jobs.JobRun;
import dev.infuse.jobs.RunCounts;
import dev.infuse.jobs.config.ConfigException;
import dev.infuse.jobs.config.ConfigJson;
import dev.infuse.jobs.config.InfuseConfig;
import dev.infuse.jobs.contract.Contract;
import dev.infuse.jobs.contract.Contracts;
import dev.infuse.jobs.io.Quarantine;
import dev.infuse.jobs.io.TokenizerFiles;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.jobs.io.WriteResult;
import dev.infuse.udfs.common.Keys;
import dev.infuse.udfs.decontam.DecontaminatedText;
import dev.infuse.udfs.decontam.DecontaminationMode;
import dev.infuse.udfs.decontam.DecontaminationSettings;
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
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;
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
 *       to {@code decontamination_hits}. A QA pair whose text was shortened trains as a plain text.
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

  private static final ObjectMapper JSON =
      new ObjectMapper()
          .enable(SerializationFeature.INDENT_OUTPUT)
          .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE);

  private final JobRun run;
  private final InfuseConfig.ShardsConfig options;

  public BuildShardsJob(JobRun run) {
    this.run = run;
    this.options = run.config().shards();
  }

  public RunCounts run() {
    SparkSession spark = run.spark();
    Warehouse warehouse = run.warehouse();
    MixtureSpec mixture = mixture();
    byte[] tokenizerJson = TokenizerFiles.read(spark, options.tokenizer(), "shards.tokenizer");
    String tokenizerSha = HexFormat.of().formatHex(Keys.sha256(tokenizerJson));
    TokenizerVocab vocab = TokenizerVocab.of(tokenizerJson);
    int eos = vocab.firstKnown("<|endoftext|>", "</s>", "<eos>", "[SEP]");
    int pad = vocab.firstKnown("<pad>", "[PAD]", "<|endoftext|>", "</s>");
    ShardOutput output = new ShardOutput(outputUri(mixture));
    String configHash =
        Keys.sha256Hex(ConfigJson.canonical(options), ConfigJson.canonical(mixture), tokenizerSha);
    Dataset<Row> questions = options.decontamination().enabled() ? questions(warehouse) : null;
    if (upToDate(output, configHash, warehouse)) {
      run.out()
          .printf(
              Locale.ROOT,
              "build-shards: %s is up to date (config %s, same input table versions); nothing to"
                  + " write%n",
              output.uri(),
              configHash.substring(0, 12));
      run.out().flush();
      long read = ShardSources.read(spark, warehouse, options.corpus(), options.replay()).count();
      return new RunCounts(read, read, 0, Map.of("up_to_date", 1L));
    }

    List<Dataset<Row>> persisted = new ArrayList<>();
    NearDuplicates.Result dedup = null;
    try {
      // Dedup and decontamination key rows by row_id: here the source-qualified key, unique across
      // sources.
      Dataset<Row> texts =
          persist(
              persisted,
              ShardSources.read(spark, warehouse, options.corpus(), options.replay())
                  .select(
                      concat(col("source"), lit("/"), col("row_id")).as("row_id"),
                      col("row_id").as("source_row_id"),
                      col("source"),
                      col("doc_id"),
                      col("prompt"),
                      col("completion"),
                      col("text")));
      Map<String, Long> readBySource = countBySource(texts);
      long read = readBySource.values().stream().mapToLong(Long::longValue).sum();
      requireSourcesForShares(mixture, readBySource);

      Dataset<Row> drops = spark.createDataFrame(List.of(), NearDuplicates.DROPS_SCHEMA);
      Dataset<Row> kept = texts;
      if (options.dedup().enabled()) {
        dedup = new NearDuplicates(options.dedup().settings()).apply(texts);
        kept = dedup.kept();
        drops = dedup.drops();
      }
      Dataset<Row> hits = spark.createDataFrame(List.of(), Decontamination.HITS_SCHEMA);
      Dataset<Row> decontaminationOutcomes = null;
      if (questions != null) {
        Decontamination.Result decontamination =
            Decontamination.apply(kept, questions, decontaminationSettings());
        Dataset<Row> scanned = persist(persisted, decontamination.scanned());
        decontaminationOutcomes =
            scanned.groupBy(col("source"), col(DecontaminationRows.OUTCOME)).count();
        hits = decontamination.hits();
        kept = decontamination.cleaned();
      }
      // A shortened QA text no longer splits into its question and answer: it trains as one plain
      // text.
      Dataset<Row> intact =
          kept.withColumn(
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
              persisted,
              spark.createDataFrame(
                  toTokenize
                      .javaRDD()
                      .mapPartitions(
                          new TrainingTextRows(
                              new JavaSparkContext(spark.sparkContext()).broadcast(tokenizerJson),
                              true)),
                  TrainingTextRows.SCHEMA));
      Dataset<Row> good = tokenized.filter(col("reason").isNull());
      Dataset<Row> failures =
          tokenized
              .filter(col("reason").isNotNull())
              .select(
                  col("source"),
                  concat(lit("row_id="), col("row_id")).as("location"),
                  col("text").as("payload"),
                  lit(null).cast("binary").as("payload_bytes"),
                  col("reason"));

      Map<String, Long> available = new TreeMap<>();
      Map<String, Long> rowsBySource = new TreeMap<>();
      for (Row row :
          good.groupBy("source")
              .agg(count(lit(1)), sum(size(col("ids")).plus(1)))
              .collectAsList()) {
        rowsBySource.put(row.getString(0), row.getLong(1));
        available.put(row.getString(0), row.getLong(2));
      }
      Map<String, SourcePlan> plan;
      try {
        plan = MixturePlanner.plan(mixture, available);
      } catch (IllegalArgumentException e) {
        throw new ConfigException(
            List.of(
                "shards.mixture: "
                    + e.getMessage()
                    + " (tokens available after dedup and"
                    + " decontamination: "
                    + available
                    + ")"));
      }
      Map<String, Double> epochs = new TreeMap<>();
      long plannedTokens = 0;
      for (SourcePlan source : plan.values()) {
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

      JavaPairRDD<ShardOrder, ShardText> sampled =
          good.javaRDD()
              .flatMapToPair(
                  new SampledRows(
                      mixture.seed(), epochs, shards, options.formats().contains("jsonl")));
      Map<String, long[]> expected = sampledBySource(sampled);
      output.clear(options.formats(), spark.sparkContext().hadoopConfiguration());
      ShardFilesTask.Spec spec =
          new ShardFilesTask.Spec(
              output,
              options.formats(),
              shards,
              options.sequenceLength(),
              options.pack(),
              vocab.size(),
              eos,
              pad);
      List<ShardFilesTask.Written> written =
          new ArrayList<>(
              sampled
                  .repartitionAndSortWithinPartitions(
                      new ShardOrder.ByShard(shards), naturalOrder())
                  .mapPartitionsWithIndex(new ShardFilesTask(spec), false)
                  .collect());
      written.sort(
          Comparator.comparing(ShardFilesTask.Written::format)
              .thenComparingInt(ShardFilesTask.Written::shard));
      reconcile(written, expected, shards);

      long quarantined = failures.count();
      WriteResult quarantineWrite =
          quarantined == 0
              ? WriteResult.unchanged(Quarantine.contract().table())
              : Quarantine.write(
                  warehouse, Quarantine.rows(failures, NAME, run.runId(), run.startedAt()));
      Map<String, Map<String, Object>> sources =
          sourceStats(readBySource, drops, decontaminationOutcomes, rowsBySource, plan, expected);
      long[] dedupCounts = dedupCounts(drops);
      WriteResult dropsWrite =
          replaceOutputRows(
              warehouse,
              "shard_dedup_drops",
              output,
              drops.select(
                  lit(output.uri()).as("output"),
                  col("row_id").as("row_key"),
                  sourceOf(col("row_id")).as("source"),
                  col("kept_row_id").as("kept_row_key"),
                  col("reason"),
                  col("similarity"),
                  lit(run.runId()).as("run_id")));
      WriteResult hitsWrite =
          replaceOutputRows(
              warehouse,
              "decontamination_hits",
              output,
              hits.select(
                  lit(output.uri()).as("output"),
                  col("row_id").as("row_key"),
                  sourceOf(col("row_id")).as("source"),
                  col("question_id"),
                  col("ngram"),
                  col("char_start"),
                  col("char_end"),
                  col("action"),
                  lit(run.runId()).as("run_id")));
      WriteResult manifestWrite =
          replaceOutputRows(
              warehouse,
              "shard_manifest",
              output,
              manifest(spark, output, written, shards, mixture, tokenizerSha, configHash));

      var hadoop = spark.sparkContext().hadoopConfiguration();
      Map<String, Object> info =
          commonInfo(mixture, vocab.size(), eos, pad, tokenizerSha, configHash, warehouse);
      info.putAll(formatsInfo(output, written));
      output.writeText("info.json", json(info), hadoop);
      output.writeText("stats.json", json(stats(written, sources, configHash)), hadoop);
      // Last: whoever finds COMPLETED finds every shard and summary of this build.
      output.writeText(ShardOutput.COMPLETED, configHash + "\n", hadoop);

      Map<String, Long> details = new LinkedHashMap<>();
      readBySource.forEach((source, n) -> details.put("read." + source, n));
      details.put("dedup.exact", dedupCounts[0]);
      details.put("dedup.near", dedupCounts[1]);
      details.put("decontamination.hits", hits.count());
      details.put("quarantined", quarantined);
      expected.forEach((source, counts) -> details.put("tokens." + source, counts[1]));
      details.put("shards", (long) shards);
      details.put("shard_manifest.inserted", manifestWrite.inserted());
      details.put("quarantine.inserted", quarantineWrite.inserted());
      RunCounts counts = new RunCounts(read, read - quarantined, quarantined, details);
      report(
          output,
          mixture,
          readBySource,
          dedupCounts,
          details.get("decontamination.hits"),
          quarantined,
          plan,
          expected,
          written);
      return counts;
    } finally {
      if (dedup != null) {
        dedup.close();
      }
      persisted.forEach(Dataset::unpersist);
    }
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

  private DecontaminationSettings decontaminationSettings() {
    InfuseConfig.ShardDecontaminationConfig d = options.decontamination();
    return new DecontaminationSettings(
        d.ngramWords(), d.minShortWords(), DecontaminationMode.parse(d.mode()), d.marginChars());
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
    for (String format : options.formats()) {
      List<ShardFilesTask.Written> files =
          written.stream().filter(w -> w.format().equals(format)).toList();
      if (files.size() != shards) {
        problems.add(format + ": " + files.size() + " shard(s) written, expected " + shards);
      }
      Map<String, Long> tokens = new TreeMap<>();
      long documents = 0;
      for (ShardFilesTask.Written file : files) {
        file.composition().forEach((source, n) -> tokens.merge(source, n, Long::sum));
        documents += file.documents();
        if (format.equals("parquet")
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

  private Dataset<Row> manifest(
      SparkSession spark,
      ShardOutput output,
      List<ShardFilesTask.Written> written,
      int shards,
      MixtureSpec mixture,
      String tokenizerSha,
      String configHash) {
    Contract contract = Contracts.load("shard_manifest");
    List<Row> rows = new ArrayList<>();
    for (ShardFilesTask.Written w : written) {
      List<Row> files =
          w.files().stream().map(f -> RowFactory.create(f.name(), f.bytes(), f.sha256())).toList();
      rows.add(
          RowFactory.create(
              output.uri(),
              w.format(),
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
              tokenizerSha,
              options.sequenceLength(),
              options.pack(),
              configHash,
              run.runId()));
    }
    return spark.createDataFrame(rows, contract.schema());
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

  private Map<String, Map<String, Object>> sourceStats(
      Map<String, Long> readBySource,
      Dataset<Row> drops,
      Dataset<Row> decontaminationOutcomes,
      Map<String, Long> rowsBySource,
      Map<String, SourcePlan> plan,
      Map<String, long[]> expected) {
    Map<String, Map<String, Object>> stats = new TreeMap<>();
    for (String source : MixtureSpec.SOURCES) {
      Map<String, Object> s = new LinkedHashMap<>();
      s.put("rows_read", readBySource.getOrDefault(source, 0L));
      s.put("dedup_dropped", 0L);
      s.put("decontamination_shortened", 0L);
      s.put("decontamination_dropped", 0L);
      s.put("rows_tokenized", rowsBySource.getOrDefault(source, 0L));
      SourcePlan p = plan.get(source);
      s.put("available_tokens", p.availableTokens());
      s.put("share", p.share());
      s.put("budget_tokens", p.budgetTokens());
      s.put("epochs", p.epochs());
      s.put("shortfall_tokens", p.shortfallTokens());
      long[] sampled = expected.getOrDefault(source, new long[2]);
      s.put("sampled_texts", sampled[0]);
      s.put("sampled_tokens", sampled[1]);
      stats.put(source, s);
    }
    for (Row row : drops.groupBy(sourceOf(col("row_id"))).count().collectAsList()) {
      stats.get(row.getString(0)).put("dedup_dropped", row.getLong(1));
    }
    if (decontaminationOutcomes != null) {
      for (Row row : decontaminationOutcomes.collectAsList()) {
        String outcome = row.getString(1);
        String key =
            outcome.equals(Decontamination.outcomeName(DecontaminatedText.Outcome.SHORTENED))
                ? "decontamination_shortened"
                : outcome.equals(Decontamination.outcomeName(DecontaminatedText.Outcome.UNCHANGED))
                    ? null
                    : "decontamination_dropped";
        if (key != null) {
          stats.get(row.getString(0)).merge(key, row.getLong(2), (a, b) -> (Long) a + (Long) b);
        }
      }
    }
    return stats;
  }

  private static long[] dedupCounts(Dataset<Row> drops) {
    long[] counts = new long[2];
    for (Row row : drops.groupBy("reason").count().collectAsList()) {
      counts[row.getString(0).equals(NearDuplicates.EXACT) ? 0 : 1] = row.getLong(1);
    }
    return counts;
  }

  private Map<String, Object> commonInfo(
      MixtureSpec mixture,
      int vocabSize,
      int eos,
      int pad,
      String tokenizerSha,
      String configHash,
      Warehouse warehouse) {
    Map<String, Object> info = new LinkedHashMap<>();
    info.put("run_id", run.runId());
    info.put("config_hash", configHash);
    info.put("mixture", mixture);
    info.put("seed", mixture.seed());
    info.put("tokenizer", options.tokenizer());
    info.put("tokenizer_sha256", tokenizerSha);
    info.put("vocab_size", vocabSize);
    info.put("eos_id", eos);
    info.put("pad_id", pad);
    info.put("sequence_length", options.sequenceLength());
    info.put("packed", options.pack());
    info.put("qa_template", QaTemplate.ID);
    info.put("dedup", options.dedup());
    info.put("decontamination", options.decontamination());
    info.put("input_table_versions", inputVersions(warehouse));
    return info;
  }

  /**
   * Per format: its directory, layout and shards; then the composition and synthetic tokens they
   * share.
   */
  private static Map<String, Object> formatsInfo(
      ShardOutput output, List<ShardFilesTask.Written> written) {
    Map<String, Object> formats = new LinkedHashMap<>();
    Map<String, Long> composition = new TreeMap<>();
    for (String format : written.stream().map(ShardFilesTask.Written::format).distinct().toList()) {
      Map<String, Object> entry = new LinkedHashMap<>();
      entry.put("directory", output.formatUri(format));
      entry.put("layout", layout(format));
      List<Map<String, Object>> shards = new ArrayList<>();
      for (ShardFilesTask.Written w : written) {
        if (!w.format().equals(format)) {
          continue;
        }
        if (format.equals(written.get(0).format())) {
          w.composition().forEach((source, n) -> composition.merge(source, n, Long::sum));
        }
        Map<String, Object> shard = new LinkedHashMap<>();
        shard.put("shard", w.shard());
        shard.put("files", w.files());
        shard.put("sequences", w.sequences());
        shard.put("documents", w.documents());
        shard.put("tokens", w.tokens());
        shard.put("padding_tokens", w.paddingTokens());
        shards.add(shard);
      }
      entry.put("shards", shards);
      formats.put(format, entry);
    }
    Map<String, Object> info = new LinkedHashMap<>();
    info.put("formats", formats);
    info.put("composition", composition);
    info.put(
        "synthetic_tokens",
        composition.entrySet().stream()
            .filter(e -> e.getKey().startsWith("synthetic_"))
            .mapToLong(Map.Entry::getValue)
            .sum());
    return info;
  }

  private static String layout(String format) {
    return switch (format) {
      case "parquet" ->
          "one row per sequence: shard int, sequence bigint, input_ids array<int>, document_lengths"
              + " array<int> (tokens of each document segment, the last one possibly padding, summing to sequence_length),"
              + " loss_mask array<int> (0 on padding only), answer_mask array<int> (0 on padding and on QA questions)";
      case "jsonl" ->
          "one training text per line: {\"text\", \"source\", \"id\"}, unpacked, in shard order";
      default ->
          "Megatron-LM MMIDIDX: <shard>.bin token ids and <shard>.idx (version 1), one document per training"
              + " text, each ending in eos_id";
    };
  }

  private static Map<String, Object> stats(
      List<ShardFilesTask.Written> written,
      Map<String, Map<String, Object>> sources,
      String configHash) {
    Map<String, Object> stats = new LinkedHashMap<>();
    stats.put("config_hash", configHash);
    stats.put("sources", sources);
    Map<String, Object> totals = new LinkedHashMap<>();
    for (String format : written.stream().map(ShardFilesTask.Written::format).distinct().toList()) {
      List<ShardFilesTask.Written> files =
          written.stream().filter(w -> w.format().equals(format)).toList();
      Map<String, Long> t = new LinkedHashMap<>();
      t.put("shards", (long) files.size());
      t.put("sequences", files.stream().mapToLong(ShardFilesTask.Written::sequences).sum());
      t.put("documents", files.stream().mapToLong(ShardFilesTask.Written::documents).sum());
      t.put("tokens", files.stream().mapToLong(ShardFilesTask.Written::tokens).sum());
      t.put(
          "padding_tokens", files.stream().mapToLong(ShardFilesTask.Written::paddingTokens).sum());
      t.put(
          "bytes",
          files.stream()
              .flatMap(w -> w.files().stream())
              .mapToLong(ShardFilesTask.WrittenFile::bytes)
              .sum());
      totals.put(format, t);
    }
    stats.put("totals", totals);
    return stats;
  }

  private void report(
      ShardOutput output,
      MixtureSpec mixture,
      Map<String, Long> readBySource,
      long[] dedupCounts,
      long hits,
      long quarantined,
      Map<String, SourcePlan> plan,
      Map<String, long[]> expected,
      List<ShardFilesTask.Written> written) {
    var out = run.out();
    long read = readBySource.values().stream().mapToLong(Long::longValue).sum();
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
    for (SourcePlan p : plan.values()) {
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
          expected.getOrDefault(p.source(), new long[2])[1]);
    }
    for (String format : options.formats()) {
      List<ShardFilesTask.Written> files =
          written.stream().filter(w -> w.format().equals(format)).toList();
      out.printf(
          Locale.ROOT,
          "  %-8s %d shard(s), %d sequence(s), %d token(s) -> %s%n",
          format,
          files.size(),
          files.stream().mapToLong(ShardFilesTask.Written::sequences).sum(),
          files.stream().mapToLong(ShardFilesTask.Written::tokens).sum(),
          output.formatUri(format));
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
  private boolean upToDate(ShardOutput output, String configHash, Warehouse warehouse) {
    if (options.replay() != null && !warehouse.exists(options.replay())) {
      return false;
    }
    var hadoop = run.spark().sparkContext().hadoopConfiguration();
    String completed = output.readText(ShardOutput.COMPLETED, hadoop);
    String info = output.readText("info.json", hadoop);
    if (completed == null || info == null || !completed.trim().equals(configHash)) {
      return false;
    }
    try {
      Map<String, Long> built =
          JSON.convertValue(
              JSON.readTree(info).get("input_table_versions"),
              new com.fasterxml.jackson.core.type.TypeReference<Map<String, Long>>() {});
      return inputVersions(warehouse).equals(built);
    } catch (JsonProcessingException | IllegalArgumentException e) {
      return false;
    }
  }

  private static Map<String, Long> countBySource(Dataset<Row> texts) {
    Map<String, Long> counts = new TreeMap<>();
    for (Row row : texts.groupBy("source").count().collectAsList()) {
      counts.put(row.getString(0), row.getLong(1));
    }
    return counts;
  }

  private static Dataset<Row> persist(List<Dataset<Row>> persisted, Dataset<Row> dataset) {
    persisted.add(dataset.persist(StorageLevel.MEMORY_AND_DISK()));
    return dataset;
  }

  /** The source of a {@code <source>/<row_id>} key (source names have no slash). */
  private static Column sourceOf(Column rowKey) {
    return substring_index(rowKey, "/", 1);
  }

  private static String json(Object value) {
    try {
      return JSON.writeValueAsString(value) + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("shard summary does not serialise", e);
    }
  }

  @SuppressWarnings("unchecked")
  private static Comparator<ShardOrder> naturalOrder() {
    return (Comparator<ShardOrder> & Serializable) ShardOrder::compareTo;
  }
}
