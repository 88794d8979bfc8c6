package dev.infuse.jobs.shards;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.explode;
import static org.apache.spark.sql.functions.expr;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.posexplode;
import static org.apache.spark.sql.functions.size;
import static org.apache.spark.sql.functions.sum;

import dev.infuse.udfs.decontam.BenchmarkNgramIndex;
import dev.infuse.udfs.decontam.BenchmarkQuestion;
import dev.infuse.udfs.decontam.DecontaminatedText;
import dev.infuse.udfs.decontam.DecontaminatedText.Outcome;
import dev.infuse.udfs.decontam.DecontaminationSettings;
import dev.infuse.udfs.decontam.Decontaminator;
import dev.infuse.udfs.decontam.SourceQuotes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The decontamination stage of build-shards: removes benchmark questions, options and gold answers
 * from training texts before they reach a shard, keeps the quotes of each question's own source
 * document where its corpus is trained on, and logs every match with what it did.
 *
 * <p>The benchmark index ({@link BenchmarkNgramIndex}: word n-gram hashes as longs, about 17 bytes
 * per n-gram) is built once on the driver from the collected {@code questions} rows. Its quotes of
 * the source are found by scanning, on the executors, only the documents that questions are about,
 * and collecting the matched (n-gram, question) pair numbers (few: quotes are rare). The marked
 * index is broadcast and the training rows are scanned in {@code mapPartitions} by {@link
 * Decontaminator}, whose javadoc states the rules. Input rows need {@code row_id} and {@code text}
 * strings; {@code doc_id}, {@code source} and {@code prompt} are read when present (see {@link
 * DecontaminationRows}); any other columns pass through.
 *
 * <p>{@link Result#scanned()} is computed lazily and read by {@code cleaned}, {@code hits} and
 * {@code counts}; a job that writes more than one of them should persist it first (the scan is
 * cheap next to reading the input, but not free).
 */
public final class Decontamination {
  /** The {@code decontamination_hits} rows: one per (training row, benchmark n-gram, question). */
  public static final StructType HITS_SCHEMA =
      new StructType()
          .add("row_id", DataTypes.StringType, false)
          .add("question_id", DataTypes.StringType, false)
          .add("ngram", DataTypes.StringType, false)
          .add("char_start", DataTypes.IntegerType, false)
          .add("char_end", DataTypes.IntegerType, false)
          .add("action", DataTypes.StringType, false);

  /**
   * The key columns a piece of a cut text gets a suffix in: {@code <key>#<piece number from 1>}, so
   * every piece is its own training text with its own key (and its own place in the sample).
   */
  public static final List<String> PIECE_KEY_COLUMNS = List.of("row_id", "source_row_id");

  private Decontamination() {}

  /**
   * Decontaminates {@code rows} against {@code questions} (the questions table, or any dataset with
   * its question_id, question, options, gold, gold_index and answer_type columns, and optionally
   * doc_id).
   *
   * @param documents the documents table (doc_id, text), where the questions' quotes of their
   *     source are looked up; null when there is none (then nothing is a quote)
   */
  public static Result apply(
      Dataset<Row> rows,
      Dataset<Row> questions,
      Dataset<Row> documents,
      DecontaminationSettings settings) {
    StructType input = rows.schema();
    requireString(input, "row_id");
    requireString(input, "text");
    SparkSession spark = rows.sparkSession();
    BenchmarkNgramIndex index = buildIndex(questions, settings);
    if (documents != null && settings.sourceQuotes() != SourceQuotes.NOT_EXEMPT) {
      index = index.withSourceQuotes(sourceQuotePairs(index, documents));
    }
    Broadcast<Decontaminator> broadcast =
        JavaSparkContext.fromSparkContext(spark.sparkContext())
            .broadcast(new Decontaminator(index, settings));
    JavaRDD<Row> scanned = rows.javaRDD().mapPartitions(new DecontaminationRows(broadcast, input));
    return new Result(
        spark.createDataFrame(scanned, DecontaminationRows.schema(input)), input, index);
  }

  /** Collects the benchmark questions to the driver and indexes their protected texts. */
  public static BenchmarkNgramIndex buildIndex(
      Dataset<Row> questions, DecontaminationSettings settings) {
    for (String column : List.of("question_id", "question", "gold", "answer_type")) {
      requireString(questions.schema(), column);
    }
    boolean hasDoc = Arrays.asList(questions.columns()).contains("doc_id");
    if (hasDoc) {
      requireString(questions.schema(), "doc_id");
    }
    List<BenchmarkQuestion> benchmark = new ArrayList<>();
    for (Row row :
        questions
            .select(
                col("question_id"),
                col("question"),
                col("options"),
                col("gold"),
                col("gold_index"),
                col("answer_type"),
                hasDoc ? col("doc_id") : lit(null).cast("string"))
            .collectAsList()) {
      benchmark.add(
          new BenchmarkQuestion(
              row.getString(0),
              row.getString(1),
              row.isNullAt(2) ? null : new ArrayList<>(row.<String>getList(2)),
              row.getString(3),
              row.isNullAt(4) ? null : row.getInt(4),
              row.getString(5),
              row.getString(6)));
    }
    return BenchmarkNgramIndex.build(benchmark, settings);
  }

  /**
   * The (n-gram, question) pairs of {@code index} that quote the question's own document: only the
   * documents some question is about are read, scanned on the executors against the broadcast
   * index.
   */
  static int[] sourceQuotePairs(BenchmarkNgramIndex index, Dataset<Row> documents) {
    if (index.docIds().isEmpty()) {
      return new int[0];
    }
    requireString(documents.schema(), "doc_id");
    requireString(documents.schema(), "text");
    SparkSession spark = documents.sparkSession();
    Dataset<Row> about =
        spark.createDataset(new ArrayList<>(index.docIds()), Encoders.STRING()).toDF("doc_id");
    Broadcast<BenchmarkNgramIndex> broadcast =
        JavaSparkContext.fromSparkContext(spark.sparkContext()).broadcast(index);
    return documents
        .select("doc_id", "text")
        .join(about, "doc_id")
        .javaRDD()
        .flatMap(
            row ->
                Arrays.stream(
                        broadcast.value().sourceQuotePairs(row.getString(0), row.getString(1)))
                    .boxed()
                    .iterator())
        .distinct()
        .collect()
        .stream()
        .mapToInt(Integer::intValue)
        .sorted()
        .toArray();
  }

  static String outcomeName(DecontaminatedText.Outcome outcome) {
    return outcome.id();
  }

  private static void requireString(StructType schema, String column) {
    StructField field =
        Arrays.stream(schema.fields())
            .filter(f -> f.name().equals(column))
            .findFirst()
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "decontamination input: missing column "
                            + column
                            + ", expected a string column "
                            + column
                            + " among "
                            + Arrays.toString(schema.fieldNames())));
    if (!field.dataType().equals(DataTypes.StringType)) {
      throw new IllegalArgumentException(
          "decontamination input: column "
              + column
              + " is "
              + field.dataType().simpleString()
              + ", expected string");
    }
  }

  /**
   * The stage's outputs.
   *
   * @param scanned every input row once, with the decontamination columns appended
   * @param index the broadcast index, for its size figures
   */
  public record Result(Dataset<Row> scanned, StructType inputSchema, BenchmarkNgramIndex index) {
    /**
     * The texts to keep, in the input's columns: unchanged rows as they were, and each kept piece
     * of a cut row as a row of its own, with the piece as its text and {@code #<n>} appended to its
     * {@link #PIECE_KEY_COLUMNS}. Dropped rows are absent; their hits say why.
     */
    public Dataset<Row> cleaned() {
      Column[] whole =
          Arrays.stream(inputSchema.fieldNames()).map(functions::col).toArray(Column[]::new);
      Column[] pieces =
          Arrays.stream(inputSchema.fieldNames())
              .map(
                  name ->
                      name.equals("text")
                          ? col("_piece").as("text")
                          : PIECE_KEY_COLUMNS.contains(name)
                              ? concat(
                                      col(name), lit("#"), col("_piece_pos").plus(1).cast("string"))
                                  .as(name)
                              : col(name))
              .toArray(Column[]::new);
      Dataset<Row> unchanged =
          scanned
              .filter(col(DecontaminationRows.OUTCOME).equalTo(outcomeName(Outcome.UNCHANGED)))
              .select(whole);
      Dataset<Row> cut =
          scanned
              .filter(col(DecontaminationRows.OUTCOME).equalTo(outcomeName(Outcome.SHORTENED)))
              .select(
                  col("*"),
                  posexplode(col(DecontaminationRows.PIECES))
                      .as(new String[] {"_piece_pos", "_piece"}))
              .select(pieces);
      return unchanged.unionByName(cut);
    }

    /**
     * One row per hit, in {@link Decontamination#HITS_SCHEMA}, for the {@code decontamination_hits}
     * table.
     */
    public Dataset<Row> hits() {
      return scanned
          .filter(size(col(DecontaminationRows.HITS)).gt(0))
          .select(col("row_id"), explode(col(DecontaminationRows.HITS)).as("hit"))
          .select(
              col("row_id"),
              col("hit.question_id"),
              col("hit.ngram"),
              col("hit.char_start"),
              col("hit.char_end"),
              col("hit.action"));
    }

    /** Row, piece, hit and character counts by outcome, in one pass over {@link #scanned()}. */
    public Counts counts() {
      Map<Outcome, long[]> byOutcome = new EnumMap<>(Outcome.class);
      for (Outcome outcome : Outcome.values()) {
        byOutcome.put(outcome, new long[5]);
      }
      Column exempt =
          expr(
              "size(filter("
                  + DecontaminationRows.HITS
                  + ", h -> h.action = '"
                  + DecontaminatedText.Action.EXEMPT_SOURCE_QUOTE.id()
                  + "'))");
      for (Row row :
          scanned
              .groupBy(col(DecontaminationRows.OUTCOME))
              .agg(
                  count(lit(1)),
                  coalesce(sum(size(col(DecontaminationRows.PIECES))), lit(0L)),
                  coalesce(sum(size(col(DecontaminationRows.HITS))), lit(0L)),
                  coalesce(sum(exempt), lit(0L)),
                  coalesce(sum(col(DecontaminationRows.REMOVED_CHARS)), lit(0L)))
              .collectAsList()) {
        long[] n = byOutcome.get(Outcome.valueOf(row.getString(0).toUpperCase(Locale.ROOT)));
        for (int i = 0; i < 5; i++) {
          n[i] = row.getLong(i + 1);
        }
      }
      return new Counts(
          byOutcome.values().stream().mapToLong(n -> n[0]).sum(),
          byOutcome.get(Outcome.UNCHANGED)[0],
          byOutcome.get(Outcome.SHORTENED)[0],
          byOutcome.get(Outcome.SHORTENED)[1],
          byOutcome.get(Outcome.DROPPED)[0],
          byOutcome.get(Outcome.TOO_DIRTY)[0],
          byOutcome.get(Outcome.EMPTIED)[0],
          byOutcome.get(Outcome.SYNTHETIC_QA)[0],
          byOutcome.values().stream().mapToLong(n -> n[2]).sum(),
          byOutcome.values().stream().mapToLong(n -> n[3]).sum(),
          byOutcome.values().stream().mapToLong(n -> n[4]).sum());
    }
  }

  /**
   * What the stage did. {@code rowsIn = unchanged + shortened + dropped + tooDirty + emptied +
   * syntheticQa}, and the cleaned output has {@code unchanged + pieces} rows.
   *
   * @param shortened rows cut, whose {@code pieces} kept pieces each became a text
   * @param dropped rows dropped by mode {@code drop_row}
   * @param tooDirty rows with more than {@code too_dirty_cutoff} contaminated n-grams, dropped
   * @param emptied rows cut with no piece of {@code min_piece_chars} left, dropped
   * @param syntheticQa synthetic QA pairs whose question matches a benchmark question, dropped
   * @param hits every hit logged, exempt ones included
   * @param exemptHits hits on quotes of the question's source, exempt in their row
   * @param removedChars characters in no kept piece, counting a dropped row's whole text
   */
  public record Counts(
      long rowsIn,
      long unchanged,
      long shortened,
      long pieces,
      long dropped,
      long tooDirty,
      long emptied,
      long syntheticQa,
      long hits,
      long exemptHits,
      long removedChars) {
    public long rowsOut() {
      return unchanged + pieces;
    }

    /** Fails unless the written outputs have exactly the rows these counts imply. */
    public void requireReconciled(long inputRows, long cleanedRows, long hitRows) {
      if (inputRows != rowsIn
          || cleanedRows != rowsOut()
          || hitRows != hits
          || rowsIn != unchanged + shortened + dropped + tooDirty + emptied + syntheticQa) {
        throw new IllegalStateException(
            "decontamination counts do not reconcile: input "
                + inputRows
                + " rows, cleaned "
                + cleanedRows
                + ", hits "
                + hitRows
                + "; expected "
                + this
                + ", so cleaned "
                + rowsOut()
                + " (unchanged + pieces)");
      }
    }

    @Override
    public String toString() {
      return String.format(
          Locale.ROOT,
          "%d row(s): %d unchanged, %d cut into %d piece(s), dropped: %d (drop_row), %d (too"
              + " dirty), %d (no piece left), %d (synthetic QA asking a benchmark question); %d"
              + " hit(s), %d of them exempt quotes of the source; %d character(s) removed",
          rowsIn,
          unchanged,
          shortened,
          pieces,
          dropped,
          tooDirty,
          emptied,
          syntheticQa,
          hits,
          exemptHits,
          removedChars);
    }
  }
}
