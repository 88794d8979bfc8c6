package dev.infuse.jobs.shards;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.first;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.min;
import static org.apache.spark.sql.functions.struct;
import static org.apache.spark.sql.functions.sum;

import dev.infuse.udfs.common.Keys;
import dev.infuse.udfs.mix.StatelessSampler;
import dev.infuse.udfs.text.TextTokenizer;
import dev.infuse.udfs.text.Tokenizers;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The synthetic tokens of a shard build as the SMT and EntiGraph papers count them: in a tokenizer
 * the user names (ideally the trained model's, {@code shards.count_tokenizer}), without special
 * tokens or the shards' EOS separators, per generator.
 *
 * <ul>
 *   <li><b>unique</b>: every distinct synthetic text in the build counted once (a text the mixture
 *       did not sample is not counted; two rows with the same text count once, attributed to the
 *       smallest (source, generator) that holds it). The papers' x-axis.
 *   <li><b>seen</b>: with the repetitions the mixture sampled ({@code max_epochs}): the synthetic
 *       tokens the model is trained on.
 * </ul>
 *
 * <p>Texts are counted as trained: after dedup and decontamination (a shortened text counts its
 * remaining characters), a QA pair as its {@code QaTemplate} text.
 *
 * @param tokenizer the count tokenizer as configured ({@code default} or a path)
 * @param tokenizerSha256 the sha256 of its tokenizer.json bytes
 * @param texts distinct synthetic texts counted
 * @param unique tokens of the distinct texts, each once
 * @param seen tokens of every sampled repetition
 * @param byGenerator the same per generator ({@code <backend>:<model>} of the rows)
 * @param bySource per synthetic source, per generator
 */
public record SyntheticTokenCounts(
    String tokenizer,
    String tokenizerSha256,
    long texts,
    long unique,
    long seen,
    Map<String, Counts> byGenerator,
    Map<String, Map<String, Counts>> bySource) {

  /** A synthetic row without a generator (none in contract-conforming tables). */
  public static final String UNKNOWN_GENERATOR = "unknown";

  /** Separates the generators of a model trained on several. */
  public static final String GENERATOR_SEPARATOR = "+";

  /** Distinct texts, their tokens once, and their tokens with repetitions. */
  public record Counts(long texts, long unique, long seen) {
    Counts plus(Counts other) {
      return new Counts(texts + other.texts, unique + other.unique, seen + other.seen);
    }
  }

  /**
   * The generator behind the build's synthetic tokens: one {@code <backend>:<model>}, or several
   * sorted and joined with {@value #GENERATOR_SEPARATOR}; null when the build has none. A sweep
   * groups its runs by this.
   */
  public String generator() {
    TreeSet<String> generators = new TreeSet<>();
    byGenerator.forEach(
        (generator, counts) -> {
          if (counts.seen() > 0) {
            generators.add(generator);
          }
        });
    return generators.isEmpty() ? null : String.join(GENERATOR_SEPARATOR, generators);
  }

  /**
   * Counts the synthetic texts of {@code tokenized} (rows of {@link TrainingTextRows#SCHEMA}
   * without a failure reason, {@code row_id} as in the source table) on the executors.
   *
   * @param generators {@code (source, row_id, generator)} of the build's sources
   * @param seed the mixture's seed and {@code epochs} its planned passes per source: the sample
   *     {@link SampledRows} draws, so the repetitions counted are the ones written
   * @param expectedTexts per source, the sampled repetitions the shards hold: checked against
   */
  static SyntheticTokenCounts count(
      SparkSession spark,
      Dataset<Row> tokenized,
      Dataset<Row> generators,
      long seed,
      Map<String, Double> epochs,
      String tokenizer,
      byte[] tokenizerJson,
      Map<String, Long> expectedTexts) {
    Dataset<Row> lookup =
        generators.select(
            col("source").as("g_source"), col("row_id").as("g_row_id"), col("generator"));
    Dataset<Row> synthetic =
        tokenized
            .filter(col("source").startsWith("synthetic_"))
            .join(
                lookup,
                col("source").equalTo(col("g_source")).and(col("row_id").equalTo(col("g_row_id"))),
                "left");
    Dataset<Row> counted =
        spark
            .createDataFrame(
                synthetic
                    .select("source", "row_id", "text", "generator")
                    .javaRDD()
                    .mapPartitions(
                        new CountRows(
                            new JavaSparkContext(spark.sparkContext()).broadcast(tokenizerJson),
                            seed,
                            epochs)),
                CountRows.SCHEMA)
            .cache();
    try {
      Map<String, Map<String, long[]>> bySource = new TreeMap<>();
      Map<String, Long> repetitionsBySource = new TreeMap<>();
      for (Row row :
          counted
              .groupBy("source", "generator")
              .agg(sum(col("tokens").multiply(col("repetitions"))), sum("repetitions"))
              .collectAsList()) {
        bySource.computeIfAbsent(row.getString(0), s -> new TreeMap<>())
                .computeIfAbsent(row.getString(1), g -> new long[3])[2] =
            row.getLong(2);
        repetitionsBySource.merge(row.getString(0), row.getLong(3), Long::sum);
      }
      // Each distinct text once, owned by the smallest (source, generator) that holds it.
      for (Row row :
          counted
              .groupBy("text_sha256")
              .agg(
                  min(struct(col("source"), col("generator"))).as("owner"),
                  first("tokens").as("tokens"))
              .groupBy(col("owner.source"), col("owner.generator"))
              .agg(functions.count(lit(1)), sum("tokens"))
              .collectAsList()) {
        long[] c =
            bySource
                .computeIfAbsent(row.getString(0), s -> new TreeMap<>())
                .computeIfAbsent(row.getString(1), g -> new long[3]);
        c[0] = row.getLong(2);
        c[1] = row.getLong(3);
      }
      Map<String, Long> expected = new TreeMap<>();
      expectedTexts.forEach(
          (source, n) -> {
            if (source.startsWith("synthetic_") && n > 0) {
              expected.put(source, n);
            }
          });
      if (!expected.equals(repetitionsBySource)) {
        throw new IllegalStateException(
            "build-shards: the synthetic token count saw "
                + repetitionsBySource
                + " sampled synthetic texts per source, but the sample holds "
                + expected);
      }
      return of(tokenizer, tokenizerJson, bySource);
    } finally {
      counted.unpersist();
    }
  }

  private static SyntheticTokenCounts of(
      String tokenizer, byte[] tokenizerJson, Map<String, Map<String, long[]>> raw) {
    Map<String, Map<String, Counts>> bySource = new TreeMap<>();
    Map<String, Counts> byGenerator = new TreeMap<>();
    Counts total = new Counts(0, 0, 0);
    for (Map.Entry<String, Map<String, long[]>> source : raw.entrySet()) {
      Map<String, Counts> generators = new TreeMap<>();
      for (Map.Entry<String, long[]> generator : source.getValue().entrySet()) {
        long[] c = generator.getValue();
        Counts counts = new Counts(c[0], c[1], c[2]);
        generators.put(generator.getKey(), counts);
        byGenerator.merge(generator.getKey(), counts, Counts::plus);
        total = total.plus(counts);
      }
      bySource.put(source.getKey(), generators);
    }
    return new SyntheticTokenCounts(
        tokenizer,
        HexFormat.of().formatHex(Keys.sha256(tokenizerJson)),
        total.texts(),
        total.unique(),
        total.seen(),
        byGenerator,
        bySource);
  }

  /**
   * Per synthetic row: its sampled repetitions (as {@link SampledRows} draws them) and its tokens
   * in the count tokenizer, built once per executor JVM from the broadcast bytes. Rows the mixture
   * does not sample are left out.
   */
  static final class CountRows implements FlatMapFunction<Iterator<Row>, Row> {
    private static final long serialVersionUID = 1L;

    static final StructType SCHEMA =
        new StructType()
            .add("source", DataTypes.StringType, false)
            .add("generator", DataTypes.StringType, false)
            .add("text_sha256", DataTypes.StringType, false)
            .add("tokens", DataTypes.LongType, false)
            .add("repetitions", DataTypes.LongType, false);

    private final Broadcast<byte[]> tokenizerJson;
    private final long seed;
    private final Map<String, Double> epochs;

    CountRows(Broadcast<byte[]> tokenizerJson, long seed, Map<String, Double> epochs) {
      this.tokenizerJson = tokenizerJson;
      this.seed = seed;
      this.epochs = Map.copyOf(epochs);
    }

    @Override
    public Iterator<Row> call(Iterator<Row> rows) {
      TextTokenizer tokenizer = Tokenizers.fromBytes(tokenizerJson.value());
      StatelessSampler sampler = new StatelessSampler(seed);
      List<Row> out = new ArrayList<>();
      while (rows.hasNext()) {
        Row row = rows.next();
        String source = row.getString(0);
        int repetitions =
            sampler.repetitions(source, row.getString(1), epochs.getOrDefault(source, 0.0)).size();
        if (repetitions == 0) {
          continue;
        }
        String text = row.getString(2);
        out.add(
            RowFactory.create(
                source,
                row.isNullAt(3) ? UNKNOWN_GENERATOR : row.getString(3),
                Keys.sha256Hex(text),
                (long) tokenizer.ids(text).length,
                (long) repetitions));
      }
      return out.iterator();
    }
  }
}
