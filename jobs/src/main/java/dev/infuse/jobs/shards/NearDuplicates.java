package dev.infuse.jobs.shards;

import static org.apache.spark.sql.functions.broadcast;
import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.min;
import static org.apache.spark.sql.functions.when;

import dev.infuse.udfs.dedup.DedupConfig;
import dev.infuse.udfs.dedup.Shingles;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.storage.StorageLevel;

/**
 * Exact and near-duplicate removal of texts, scalable: nothing but counts comes to the driver.
 *
 * <ol>
 *   <li>Each partition computes, per row, the {@link dev.infuse.udfs.dedup.TextNormalizer} hash and
 *       the MinHash signature of the word shingles (one normalisation serves both).
 *   <li>Exact: rows with equal hash form a group; the smallest row_id stays, the others drop as
 *       {@code exact} with similarity 1.0.
 *   <li>Near, among the exact survivors: band keys are exploded and grouped by shuffle on {@code
 *       (band, band_key)}; each bucket yields candidate pairs ({@link BucketPairs} caps them); each
 *       distinct pair is verified by the exact Jaccard similarity of its shingle sets ≥ the
 *       threshold (the signature estimate would blur pairs right at the threshold).
 *   <li>Verified pairs form a graph; each connected component ({@link ConnectedComponents}) keeps
 *       its smallest row_id and drops the others as {@code near}, with their exact shingle Jaccard
 *       similarity to the kept row. Through chains that similarity can be below the threshold.
 * </ol>
 *
 * <p>Every drop names a kept row: an exact copy of a row that is itself dropped as near points at
 * that row's representative, with reason {@code near} and its similarity. Counts reconcile: {@code
 * input = kept + drops}. row_id must be unique and non-null. The output is a function of the input
 * rows and the config only (partitioning and order do not matter).
 */
public final class NearDuplicates {
  public static final String EXACT = "exact";
  public static final String NEAR = "near";

  /** Schema of {@link Result#drops()}. */
  public static final StructType DROPS_SCHEMA =
      new StructType()
          .add("row_id", DataTypes.StringType, false)
          .add("kept_row_id", DataTypes.StringType, false)
          .add("reason", DataTypes.StringType, false)
          .add("similarity", DataTypes.DoubleType, false);

  /**
   * Id-only datasets up to this many rows (tens of MB) are broadcast instead of shuffling the other
   * side.
   */
  static final long BROADCAST_MAX_ROWS = 1_000_000;

  private final DedupConfig config;

  /**
   * @throws IllegalArgumentException listing every problem of {@code config}
   */
  public NearDuplicates(DedupConfig config) {
    this.config = config.requireValid();
  }

  /**
   * The rows to keep (all input columns) and the rows dropped ({@link #DROPS_SCHEMA}). Runs the
   * pipeline up to the drops, which are materialised (locally checkpointed: they are few); the kept
   * rows are a lazy anti-join of the input with them. The signatures stay persisted until {@link
   * Result#close()}.
   *
   * @param input at least {@code row_id string, text string}
   */
  public Result apply(Dataset<Row> input) {
    requireStringColumn(input, "row_id");
    requireStringColumn(input, "text");
    Dataset<Row> signatures =
        input
            .select("row_id", "text")
            .mapPartitions(new SignatureRows(config), Encoders.row(SignatureRows.SCHEMA))
            .persist(StorageLevel.MEMORY_AND_DISK());

    Dataset<Row> exactGroups = signatures.select("row_id", "exact_hash");
    Dataset<Row> exactDrops =
        exactGroups
            .join(
                exactGroups
                    .groupBy(col("exact_hash").as("group_hash"))
                    .agg(min("row_id").as("kept_row_id")),
                col("exact_hash").equalTo(col("group_hash")))
            .where(col("row_id").notEqual(col("kept_row_id")))
            .select("row_id", "kept_row_id")
            .localCheckpoint();
    long exactCount = exactDrops.count();
    Dataset<Row> survivors =
        signatures
            .join(
                small(exactDrops.select(col("row_id").as("exact_drop_id")), exactCount),
                col("row_id").equalTo(col("exact_drop_id")),
                "left_anti")
            .select("row_id", "signature");

    Dataset<Row> candidates =
        survivors
            .flatMap(new BandKeyRows(config.lshBands()), Encoders.row(BandKeyRows.SCHEMA))
            // Each bucket a run of sorted rows in one partition: the sort spills, and BucketPairs
            // holds at most one capped bucket.
            .repartition(col("band"), col("band_key"))
            .sortWithinPartitions("band", "band_key", "row_id")
            .mapPartitions(
                new BucketPairs(config.maxBucketSize()), Encoders.row(BucketPairs.SCHEMA))
            .distinct();
    // Exact drops never appear in candidates, so joining all signatures is the same as joining
    // survivors.
    Dataset<Row> verified =
        similarities(candidates, signatures)
            .where(col("similarity").geq(config.jaccardThreshold()))
            .localCheckpoint();

    Dataset<Row> labels = ConnectedComponents.labels(verified.select("a", "b"));
    Dataset<Row> nearDrops =
        nearDrops(labels.where(col("vertex").notEqual(col("label"))), verified, signatures);

    // An exact copy of a near drop follows its group's row to the near representative.
    Dataset<Row> exactResolved =
        exactDrops
            .join(
                nearDrops.select(
                    col("row_id").as("rep"),
                    col("kept_row_id").as("near_kept"),
                    col("similarity").as("near_similarity")),
                col("kept_row_id").equalTo(col("rep")),
                "left_outer")
            .select(
                col("row_id"),
                coalesce(col("near_kept"), col("kept_row_id")).as("kept_row_id"),
                when(col("near_kept").isNull(), lit(EXACT)).otherwise(lit(NEAR)).as("reason"),
                coalesce(col("near_similarity"), lit(1.0)).as("similarity"));
    Dataset<Row> drops = nearDrops.unionByName(exactResolved).localCheckpoint();
    long dropCount = drops.count();
    Dataset<Row> kept =
        input.join(
            small(drops.select(col("row_id").as("dropped_id")), dropCount),
            col("row_id").equalTo(col("dropped_id")),
            "left_anti");
    return new Result(kept, drops, signatures);
  }

  /**
   * Near drops {@code (row_id, kept_row_id, reason, similarity)} from the labels of
   * non-representatives. Most rows are verified directly against their representative, so the
   * similarity comes from that edge; only rows linked through a chain are compared with the
   * representative again.
   */
  private static Dataset<Row> nearDrops(
      Dataset<Row> nonRepresentatives, Dataset<Row> verified, Dataset<Row> signatures) {
    Dataset<Row> direct =
        nonRepresentatives
            .join(
                verified,
                col("vertex").equalTo(col("b")).and(col("label").equalTo(col("a"))),
                "left_outer")
            .select(
                col("vertex").as("row_id"),
                col("label").as("kept_row_id"),
                lit(NEAR).as("reason"),
                col("similarity"))
            .localCheckpoint();
    Dataset<Row> chained = direct.where(col("similarity").isNull());
    long chainedCount = chained.count();
    if (chainedCount == 0) {
      return direct;
    }
    Dataset<Row> compared =
        similarities(chained.select(col("row_id").as("a"), col("kept_row_id").as("b")), signatures)
            .select(
                col("a").as("row_id"),
                col("b").as("kept_row_id"),
                lit(NEAR).as("reason"),
                col("similarity"));
    return direct.where(col("similarity").isNotNull()).unionByName(compared);
  }

  /**
   * Marks a dataset of {@code rows} rows for broadcast when it is small enough that shipping it to
   * every executor beats shuffling the large side of the join; else leaves it to a shuffle join.
   */
  private static Dataset<Row> small(Dataset<Row> dataset, long rows) {
    return rows <= BROADCAST_MAX_ROWS ? broadcast(dataset) : dataset;
  }

  /** {@code (a, b)} pairs with the exact Jaccard similarity of their shingle sets. */
  private static Dataset<Row> similarities(Dataset<Row> pairs, Dataset<Row> signatures) {
    Dataset<Row> sa = signatures.select(col("row_id").as("sa_id"), col("shingles").as("sa"));
    Dataset<Row> sb = signatures.select(col("row_id").as("sb_id"), col("shingles").as("sb"));
    StructType schema =
        new StructType()
            .add("a", DataTypes.StringType, false)
            .add("b", DataTypes.StringType, false)
            .add("similarity", DataTypes.DoubleType, false);
    return pairs
        .join(sa, col("a").equalTo(col("sa_id")))
        .join(sb, col("b").equalTo(col("sb_id")))
        .select("a", "b", "sa", "sb")
        .mapPartitions(
            (MapPartitionsFunction<Row, Row>)
                rows ->
                    new Iterator<>() {
                      @Override
                      public boolean hasNext() {
                        return rows.hasNext();
                      }

                      @Override
                      public Row next() {
                        Row row = rows.next();
                        double similarity =
                            Shingles.jaccard(
                                SignatureRows.fromBytes((byte[]) row.get(2)),
                                SignatureRows.fromBytes((byte[]) row.get(3)));
                        return RowFactory.create(row.getString(0), row.getString(1), similarity);
                      }
                    },
            Encoders.row(schema));
  }

  private static void requireStringColumn(Dataset<Row> input, String name) {
    List<String> names = new ArrayList<>(Arrays.asList(input.columns()));
    if (!names.contains(name)) {
      throw new IllegalArgumentException(
          "dedup input: column '"
              + name
              + "' is missing; expected a string column '"
              + name
              + "' among "
              + names);
    }
    DataType type = input.schema().apply(name).dataType();
    if (!type.equals(DataTypes.StringType)) {
      throw new IllegalArgumentException(
          "dedup input: column '"
              + name
              + "' has type "
              + type.simpleString()
              + ", expected string");
    }
  }

  /**
   * The outcome of {@link #apply}. {@link #close()} releases the persisted signatures once both
   * datasets have been written.
   *
   * @param kept the input rows that stay, all columns
   * @param drops one row per dropped input row: row_id, kept_row_id, reason, similarity
   *     (materialised)
   * @param signatures the persisted per-row signatures and shingle sets, released by {@link
   *     #close()}
   */
  public record Result(Dataset<Row> kept, Dataset<Row> drops, Dataset<Row> signatures)
      implements AutoCloseable {
    @Override
    public void close() {
      signatures.unpersist();
    }
  }
}
