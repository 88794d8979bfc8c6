package dev.infuse.jobs.io;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.sha2;
import static org.apache.spark.sql.functions.struct;
import static org.apache.spark.sql.functions.to_json;

import dev.infuse.jobs.config.ConfigException;
import dev.infuse.jobs.contract.Contract;
import dev.infuse.jobs.contract.ContractEnforcer;
import io.delta.tables.DeltaMergeBuilder;
import io.delta.tables.DeltaTable;
import io.delta.tables.DeltaTableBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;

/**
 * The Delta tables of one warehouse: a directory (local, {@code s3://}, {@code abfss://}, {@code
 * dbfs:/}, any Hadoop URI) with one Delta table per subdirectory, named after the table.
 *
 * <p>Every write goes through the table's contract first. Writes are idempotent: rows are merged on
 * the primary key, and rows whose content is unchanged are filtered out beforehand (a left-anti
 * join on key and content hash), because a Delta MERGE commits a new version even when it changes
 * nothing. So a rerun over the same input commits nothing and leaves the table byte-for-byte the
 * same.
 */
public final class Warehouse {
  /** Table property naming the contract and version that created the table. */
  public static final String CONTRACT_PROPERTY = "infuse.contract";

  private static final String ROW_HASH = "_row_hash";
  private static final String DELETE = "_delete";

  private final SparkSession spark;
  private final String root;

  public Warehouse(SparkSession spark, String root) {
    this.spark = spark;
    this.root = qualify(spark, root);
  }

  /**
   * An absolute, scheme-qualified root ({@code file:/…}, {@code s3://…}): Delta rejects relative
   * table paths.
   */
  private static String qualify(SparkSession spark, String root) {
    try {
      Path path = new Path(root);
      String qualified =
          path.getFileSystem(spark.sparkContext().hadoopConfiguration())
              .makeQualified(path)
              .toString();
      return qualified.endsWith("/") ? qualified.substring(0, qualified.length() - 1) : qualified;
    } catch (IOException e) {
      throw new ConfigException(
          List.of(
              "--warehouse: cannot open "
                  + root
                  + ": "
                  + firstLine(e)
                  + "; expected a local path or a URI whose Hadoop file system is on the classpath"
                  + " (s3a:// needs org.apache.hadoop:hadoop-aws, see README, Deploy)"));
    }
  }

  /**
   * Fails with a clear error when the root cannot be reached (a missing bucket, credentials the
   * store refuses, an endpoint that does not answer); a root that does not exist yet is fine, the
   * first write creates it.
   */
  public void requireReachable() {
    try {
      Path rootPath = new Path(root);
      rootPath.getFileSystem(spark.sparkContext().hadoopConfiguration()).exists(rootPath);
    } catch (IOException | RuntimeException e) {
      throw new ConfigException(
          List.of(
              "--warehouse: cannot reach "
                  + root
                  + ": "
                  + firstLine(e)
                  + "; expected a warehouse this session can list and write"
                  + (root.startsWith("s3")
                      ? " (check that the bucket exists, and spark.hadoop.fs.s3a.*: the credentials"
                          + " provider or keys, the endpoint, path.style.access for an S3-compatible"
                          + " store)"
                      : "")));
    }
  }

  private static String firstLine(Throwable e) {
    String message = e.getMessage() == null ? e.toString() : e.getMessage();
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }

  public String root() {
    return root;
  }

  public String path(String table) {
    return root + "/" + table;
  }

  public boolean exists(String table) {
    return DeltaTable.isDeltaTable(spark, path(table));
  }

  public Dataset<Row> read(String table) {
    if (!exists(table)) {
      throw new IllegalArgumentException(
          "table '"
              + table
              + "' does not exist in warehouse "
              + root
              + "; tables here: "
              + tables());
    }
    return spark.read().format("delta").load(path(table));
  }

  /** The current Delta version of a table, or -1 if it does not exist. */
  public long version(String table) {
    if (!exists(table)) {
      return -1;
    }
    return DeltaTable.forPath(spark, path(table)).history(1).select("version").head().getLong(0);
  }

  /** Names of the Delta tables in the warehouse, sorted. */
  public List<String> tables() {
    try {
      Path rootPath = new Path(root);
      FileSystem fs = rootPath.getFileSystem(spark.sparkContext().hadoopConfiguration());
      if (!fs.exists(rootPath)) {
        return List.of();
      }
      List<String> tables = new ArrayList<>();
      for (FileStatus status : fs.listStatus(rootPath)) {
        if (status.isDirectory() && fs.exists(new Path(status.getPath(), "_delta_log"))) {
          tables.add(status.getPath().getName());
        }
      }
      tables.sort(String::compareTo);
      return tables;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list warehouse " + root, e);
    }
  }

  /**
   * Registers every table as a temporary view named after it, for {@code infuse sql} and notebooks.
   */
  public List<String> registerViews() {
    List<String> tables = tables();
    for (String table : tables) {
      read(table).createOrReplaceTempView("`" + table + "`");
    }
    return tables;
  }

  /**
   * Creates the table from its contract if it does not exist (schema with column comments,
   * partitioning, contract property); if it exists, checks that the same contract version wrote it.
   */
  public void ensureTable(Contract contract) {
    String path = path(contract.table());
    if (exists(contract.table())) {
      Map<String, String> properties =
          DeltaTable.forPath(spark, path).detail().select("properties").head().getJavaMap(0);
      String written = properties.get(CONTRACT_PROPERTY);
      if (written != null && !written.equals(contract.versionTag())) {
        throw new IllegalStateException(
            "table "
                + contract.table()
                + " at "
                + path
                + " was written under contract "
                + written
                + ", but this build expects "
                + contract.versionTag()
                + "; migrate or use a new warehouse");
      }
      return;
    }
    DeltaTableBuilder builder =
        DeltaTable.createIfNotExists(spark)
            .location(path)
            .addColumns(contract.schema())
            .comment(contract.description())
            .property(CONTRACT_PROPERTY, contract.versionTag());
    if (!contract.partitionBy().isEmpty()) {
      builder = builder.partitionedBy(contract.partitionBy().toArray(String[]::new));
    }
    builder.execute();
  }

  /** Inserts new keys and updates changed rows; unchanged rows cost nothing and commit nothing. */
  public WriteResult upsert(Contract contract, Dataset<Row> rows) {
    return merge(contract, rows, List.of(), true, true);
  }

  /**
   * Like {@link #upsert}, and also deletes the rows of every combination of {@code scopeColumns}
   * values present in {@code rows} whose key is not in {@code rows}: re-chunking a document
   * replaces all its chunks (of that RAG recipe).
   */
  public WriteResult replaceWithin(
      Contract contract, Dataset<Row> rows, String scopeColumn, String... moreScopeColumns) {
    List<String> scope = new ArrayList<>(List.of(scopeColumn));
    scope.addAll(List.of(moreScopeColumns));
    return merge(contract, rows, scope, true, true);
  }

  /**
   * Like {@link #upsert}, for rows the writer knows are all new or changed (fresh LLM call
   * results): skips the content-hash comparison with the table, which costs a full scan of both.
   */
  public WriteResult upsertFresh(Contract contract, Dataset<Row> rows) {
    return merge(contract, rows, List.of(), true, false);
  }

  /** Inserts only keys the table does not hold yet; existing rows are left as they are. */
  public WriteResult insertNew(Contract contract, Dataset<Row> rows) {
    return merge(contract, rows, List.of(), false, true);
  }

  /**
   * Appends rows without a merge (append-only tables such as {@code runs}): concurrent runs never
   * conflict.
   */
  public WriteResult append(Contract contract, Dataset<Row> rows) {
    ensureTable(contract);
    Dataset<Row> conformed = new ContractEnforcer(contract).enforce(rows);
    conformed.write().format("delta").mode("append").save(path(contract.table()));
    return lastCommit(contract.table());
  }

  /**
   * Deletes the rows whose primary key is in {@code keys} (a dataset of the key columns): derived
   * tables drop rows whose source is gone. Commits nothing when no key matches a row.
   */
  public WriteResult deleteKeys(Contract contract, Dataset<Row> keys) {
    ensureTable(contract);
    String table = contract.table();
    List<String> keyColumns = contract.primaryKey();
    Dataset<Row> present =
        keys.select(columns(keyColumns))
            .distinct()
            .join(read(table).select(columns(keyColumns)), scalaSeq(keyColumns), "left_semi")
            .persist(StorageLevel.MEMORY_AND_DISK());
    try {
      if (present.isEmpty()) {
        return WriteResult.unchanged(table);
      }
      String on =
          keyColumns.stream()
              .map(k -> "t.`" + k + "` = s.`" + k + "`")
              .collect(Collectors.joining(" AND "));
      DeltaTable.forPath(spark, path(table))
          .as("t")
          .merge(present.as("s"), on)
          .whenMatched()
          .delete()
          .execute();
      return lastCommit(table);
    } finally {
      present.unpersist();
    }
  }

  private WriteResult merge(
      Contract contract,
      Dataset<Row> rows,
      List<String> scopeColumns,
      boolean updateChanged,
      boolean skipUnchanged) {
    ensureTable(contract);
    String table = contract.table();
    Dataset<Row> conformed =
        new ContractEnforcer(contract).enforce(rows).persist(StorageLevel.MEMORY_AND_DISK());
    try {
      List<String> keys = contract.primaryKey();
      Dataset<Row> existing = read(table);
      Dataset<Row> changed =
          !skipUnchanged
              ? conformed
              : updateChanged
                  ? withRowHash(contract, conformed)
                      .join(
                          withRowHash(contract, existing).select(keyAndHash(keys)),
                          scalaSeq(append(keys, ROW_HASH)),
                          "left_anti")
                      .drop(ROW_HASH)
                  : conformed.join(existing.select(columns(keys)), scalaSeq(keys), "left_anti");
      Dataset<Row> source = changed.withColumn(DELETE, lit(false));
      if (!scopeColumns.isEmpty()) {
        Dataset<Row> stale =
            existing
                .join(
                    conformed.select(columns(scopeColumns)).distinct(),
                    scalaSeq(scopeColumns),
                    "left_semi")
                .join(conformed.select(columns(keys)), scalaSeq(keys), "left_anti")
                .select(columns(keys))
                .withColumn(DELETE, lit(true));
        source = source.unionByName(stale, true);
      }
      source = source.persist(StorageLevel.MEMORY_AND_DISK());
      try {
        if (source.isEmpty()) {
          return WriteResult.unchanged(table);
        }
        String on =
            keys.stream()
                .map(k -> "t.`" + k + "` = s.`" + k + "`")
                .collect(Collectors.joining(" AND "));
        Map<String, String> assignments = new LinkedHashMap<>();
        for (String column : contract.columnNames()) {
          assignments.put("`" + column + "`", "s.`" + column + "`");
        }
        DeltaMergeBuilder merge =
            DeltaTable.forPath(spark, path(table)).as("t").merge(source.as("s"), on);
        if (!scopeColumns.isEmpty()) {
          merge = merge.whenMatched("s." + DELETE).delete();
        }
        if (updateChanged) {
          merge = merge.whenMatched().updateExpr(assignments);
        }
        merge.whenNotMatched("NOT s." + DELETE).insertExpr(assignments).execute();
        return lastCommit(table);
      } finally {
        source.unpersist();
      }
    } finally {
      conformed.unpersist();
    }
  }

  private WriteResult lastCommit(String table) {
    Row last =
        DeltaTable.forPath(spark, path(table))
            .history(1)
            .select("version", "operationMetrics")
            .head();
    Map<String, String> metrics = last.getJavaMap(1);
    long inserted = metric(metrics, "numTargetRowsInserted", metric(metrics, "numOutputRows", 0));
    return new WriteResult(
        table,
        inserted,
        metric(metrics, "numTargetRowsUpdated", 0),
        metric(metrics, "numTargetRowsDeleted", 0),
        last.getLong(0));
  }

  private static long metric(Map<String, String> metrics, String name, long fallback) {
    String value = metrics == null ? null : metrics.get(name);
    return value == null ? fallback : Long.parseLong(value);
  }

  /** Adds a hash of every non-key column: equal hash and key means the row is unchanged. */
  private static Dataset<Row> withRowHash(Contract contract, Dataset<Row> data) {
    List<String> content =
        contract.columnNames().stream().filter(c -> !contract.primaryKey().contains(c)).toList();
    Column hashed = content.isEmpty() ? lit("") : sha2(to_json(struct(columns(content))), 256);
    return data.withColumn(ROW_HASH, hashed);
  }

  private static Column[] keyAndHash(List<String> keys) {
    return columns(append(keys, ROW_HASH));
  }

  private static Column[] columns(List<String> names) {
    return names.stream().map(n -> col("`" + n + "`")).toArray(Column[]::new);
  }

  private static List<String> append(List<String> list, String item) {
    List<String> result = new ArrayList<>(list);
    result.add(item);
    return result;
  }

  private static scala.collection.Seq<String> scalaSeq(List<String> names) {
    return scala.collection.JavaConverters.asScalaBuffer(names).toSeq();
  }
}
