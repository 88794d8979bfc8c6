package dev.infuse.jobs.shards;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.explode;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.size;
import static org.apache.spark.sql.functions.sum;

import dev.infuse.udfs.decontam.BenchmarkNgramIndex;
import dev.infuse.udfs.decontam.BenchmarkQuestion;
import dev.infuse.udfs.decontam.DecontaminatedText;
import dev.infuse.udfs.decontam.DecontaminationSettings;
import dev.infuse.udfs.decontam.Decontaminator;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The decontamination stage of build-shards: removes benchmark questions, options and gold answers
 * from training texts before they reach a shard, and logs every match.
 *
 * <p>The benchmark index ({@link BenchmarkNgramIndex}: word n-gram hashes as longs, about 16 bytes
 * per n-gram) is built once on the driver from the collected {@code questions} rows and broadcast;
 * the training rows are scanned in {@code mapPartitions} by {@link Decontaminator}. Input rows need
 * {@code row_id} and {@code text} strings; any other columns pass through.
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

  private Decontamination() {}

  /**
   * Decontaminates {@code rows} against {@code questions} (the questions table, or any dataset with
   * its question_id, question, options, gold, gold_index and answer_type columns).
   */
  public static Result apply(
      Dataset<Row> rows, Dataset<Row> questions, DecontaminationSettings settings) {
    StructType input = rows.schema();
    requireString(input, "row_id");
    requireString(input, "text");
    BenchmarkNgramIndex index = buildIndex(questions, settings);
    SparkSession spark = rows.sparkSession();
    Broadcast<Decontaminator> broadcast =
        JavaSparkContext.fromSparkContext(spark.sparkContext())
            .broadcast(new Decontaminator(index, settings));
    JavaRDD<Row> scanned =
        rows.javaRDD().mapPartitions(new DecontaminationRows(broadcast, input.fieldIndex("text")));
    return new Result(
        spark.createDataFrame(scanned, DecontaminationRows.schema(input)), input, index);
  }

  /** Collects the benchmark questions to the driver and indexes their protected texts. */
  public static BenchmarkNgramIndex buildIndex(
      Dataset<Row> questions, DecontaminationSettings settings) {
    for (String column : List.of("question_id", "question", "gold", "answer_type")) {
      requireString(questions.schema(), column);
    }
    List<BenchmarkQuestion> benchmark = new ArrayList<>();
    for (Row row :
        questions
            .select("question_id", "question", "options", "gold", "gold_index", "answer_type")
            .collectAsList()) {
      benchmark.add(
          new BenchmarkQuestion(
              row.getString(0),
              row.getString(1),
              row.isNullAt(2) ? null : new ArrayList<>(row.<String>getList(2)),
              row.getString(3),
              row.isNullAt(4) ? null : row.getInt(4),
              row.getString(5)));
    }
    return BenchmarkNgramIndex.build(benchmark, settings);
  }

  static String outcomeName(DecontaminatedText.Outcome outcome) {
    return outcome.name().toLowerCase(Locale.ROOT);
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
     * The rows to keep, in the input's columns: unchanged rows as they were, shortened rows with
     * their new text. Rows dropped by {@code drop_row}, and rows that removal left without a word,
     * are absent (their hits say so with action {@code drop_row} or {@code drop_row_emptied}).
     */
    public Dataset<Row> cleaned() {
      Column[] columns =
          Arrays.stream(inputSchema.fieldNames())
              .map(
                  name ->
                      name.equals("text")
                          ? col(DecontaminationRows.KEPT_TEXT).as("text")
                          : col(name))
              .toArray(Column[]::new);
      return scanned
          .filter(
              col(DecontaminationRows.OUTCOME)
                  .isin(
                      outcomeName(DecontaminatedText.Outcome.UNCHANGED),
                      outcomeName(DecontaminatedText.Outcome.SHORTENED)))
          .select(columns);
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

    /** Row, hit and character counts by outcome, in one pass over {@link #scanned()}. */
    public Counts counts() {
      long[] byOutcome = new long[DecontaminatedText.Outcome.values().length];
      long hits = 0;
      long removedChars = 0;
      for (Row row :
          scanned
              .groupBy(col(DecontaminationRows.OUTCOME))
              .agg(
                  count(lit(1)),
                  coalesce(sum(size(col(DecontaminationRows.HITS))), lit(0L)),
                  coalesce(sum(col(DecontaminationRows.REMOVED_CHARS)), lit(0L)))
              .collectAsList()) {
        DecontaminatedText.Outcome outcome =
            DecontaminatedText.Outcome.valueOf(row.getString(0).toUpperCase(Locale.ROOT));
        byOutcome[outcome.ordinal()] = row.getLong(1);
        hits += row.getLong(2);
        removedChars += row.getLong(3);
      }
      return new Counts(
          Arrays.stream(byOutcome).sum(),
          byOutcome[DecontaminatedText.Outcome.UNCHANGED.ordinal()],
          byOutcome[DecontaminatedText.Outcome.SHORTENED.ordinal()],
          byOutcome[DecontaminatedText.Outcome.DROPPED.ordinal()],
          byOutcome[DecontaminatedText.Outcome.EMPTIED.ordinal()],
          hits,
          removedChars);
    }
  }

  /**
   * What the stage did. {@code rowsIn = unchanged + shortened + dropped + emptied}, and the cleaned
   * output has {@code unchanged + shortened} rows.
   *
   * @param dropped rows dropped by mode {@code drop_row}
   * @param emptied rows that {@code remove_span} left without a word, dropped
   * @param removedChars characters cut, counting a dropped row's whole text
   */
  public record Counts(
      long rowsIn,
      long unchanged,
      long shortened,
      long dropped,
      long emptied,
      long hits,
      long removedChars) {
    public long rowsOut() {
      return unchanged + shortened;
    }

    /** Fails unless the written outputs have exactly the rows these counts imply. */
    public void requireReconciled(long inputRows, long cleanedRows, long hitRows) {
      if (inputRows != rowsIn
          || cleanedRows != rowsOut()
          || hitRows != hits
          || rowsIn != unchanged + shortened + dropped + emptied) {
        throw new IllegalStateException(
            "decontamination counts do not reconcile: input "
                + inputRows
                + " rows, cleaned "
                + cleanedRows
                + ", hits "
                + hitRows
                + "; expected input "
                + rowsIn
                + " = "
                + unchanged
                + " unchanged + "
                + shortened
                + " shortened + "
                + dropped
                + " dropped + "
                + emptied
                + " emptied, cleaned "
                + rowsOut()
                + ", hits "
                + hits);
      }
    }

    @Override
    public String toString() {
      return String.format(
          Locale.ROOT,
          "%d row(s): %d unchanged, %d shortened, %d dropped (drop_row), %d dropped "
              + "(no word left after removal); %d hit(s), %d character(s) removed",
          rowsIn,
          unchanged,
          shortened,
          dropped,
          emptied,
          hits,
          removedChars);
    }
  }
}
