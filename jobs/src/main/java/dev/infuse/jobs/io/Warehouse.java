package dev.infuse.jobs.io;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.sha2;
import static org.apache.spark.sql.functions.struct;
import static org.apache.spark.sql.functions.to_json;

import dev.infuse.jobs.config.ConfigException;
import dev.infuse.jobs.config.InfuseConfig;
import dev.infuse.jobs.contract.Contract;
import dev.infuse.jobs.contract.ContractEnforcer;
import dev.infuse.jobs.spark.FirstRows;
import io.delta.tables.DeltaMergeBuilder;
import io.delta.tables.DeltaTable;
import io.delta.tables.DeltaTableBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.delta.DeltaOperations;
import org.apache.spark.sql.delta.OptimisticTransaction;
import org.apache.spark.sql.delta.Snapshot;
import org.apache.spark.sql.delta.VersionChecksum;
import org.apache.spark.sql.delta.actions.Action;
import org.apache.spark.sql.delta.actions.CommitInfo;
import org.apache.spark.sql.delta.actions.FileAction;
import org.apache.spark.storage.StorageLevel;
import scala.Option;
import scala.Tuple2;
import scala.collection.Iterator;
import scala.collection.JavaConverters;
import scala.collection.Seq;

/**
 * The Delta tables of one warehouse, in one of two forms:
 *
 * <ul>
 *   <li>a directory (local, {@code s3://}, {@code abfss://}, {@code dbfs:/}, any Hadoop URI) with
 *       one Delta table per subdirectory, named after the table;
 *   <li>a metastore schema, {@code catalog.schema} (a Unity Catalog schema, a Glue or Hive database
 *       under {@code spark_catalog}): tables are created, read and merged by name, as managed
 *       tables, and files that are not tables (journals, indexes, shards, reports) go under the
 *       schema's location.
 * </ul>
 *
 * <p>Every write goes through the table's contract first. Writes are idempotent: rows are merged on
 * the primary key, and rows whose content is unchanged are filtered out beforehand (a left-anti
 * join on key and content hash), because a Delta MERGE commits a new version even when it changes
 * nothing. So a rerun over the same input commits nothing and leaves the table byte-for-byte the
 * same.
 *
 * <p>A table that holds no file yet (a fresh warehouse, a job's first run) takes its rows without
 * the MERGE: every row is an insert, so the anti-joins and the MERGE's own joins would compare
 * against nothing, and each costs Spark jobs (Delta reconstructs the table's state to plan a join).
 * The rows are written in one Delta transaction that declares it read the whole table, so a
 * concurrent writer's commit conflicts with it exactly as with a MERGE, and keys stay unique.
 */
public final class Warehouse {
  /** Table property naming the contract and version that created the table. */
  public static final String CONTRACT_PROPERTY = "infuse.contract";

  private static final String ROW_HASH = "_row_hash";
  private static final String DELETE = "_delete";

  /**
   * {@code catalog.schema}: two SQL identifiers. A directory whose name has this shape is written
   * with a slash ({@code ./runs.v2}).
   */
  private static final Pattern SCHEMA =
      Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)\\.([A-Za-z_][A-Za-z0-9_]*)");

  private final SparkSession spark;
  // Where the tables are: the directory, or the schema's location.
  private final String root;
  // Where files that are not tables go: run.files_dir, else the root.
  private final String files;
  // The quoted schema (`catalog`.`schema`), or null when the warehouse is a directory.
  private final String schema;

  /** The warehouse at {@code location}, with its files beside its tables. */
  public Warehouse(SparkSession spark, String location) {
    this(spark, location, null);
  }

  /** The warehouse a config names: {@code warehouse}, with {@code run.files_dir}. */
  public static Warehouse of(SparkSession spark, InfuseConfig config) {
    return new Warehouse(spark, config.warehouse(), config.run().filesDir());
  }

  /**
   * @param location {@code --warehouse}: a directory or Hadoop URI, or {@code catalog.schema}
   * @param filesDir where files that are not tables go, or null for the location (or the schema's)
   */
  public Warehouse(SparkSession spark, String location, String filesDir) {
    this.spark = spark;
    Matcher schemaName = SCHEMA.matcher(location);
    if (schemaName.matches()) {
      this.schema = "`" + schemaName.group(1) + "`.`" + schemaName.group(2) + "`";
      this.root = schemaLocation(spark, location, schema);
      if (root == null && filesDir == null) {
        throw new ConfigException(
            List.of(
                "--warehouse: schema "
                    + location
                    + " has no location for the files that are not tables (LLM call journals,"
                    + " indexes, shards); expected run.files_dir, a directory or volume for them"));
      }
    } else {
      this.schema = null;
      this.root = qualify(spark, location);
    }
    this.files = filesDir == null ? root : qualify(spark, filesDir);
  }

  /** Whether {@code --warehouse} names a metastore schema rather than a directory. */
  public static boolean isSchema(String location) {
    return SCHEMA.matcher(location).matches();
  }

  /**
   * Creates the schema if it is missing and returns its location, or null when the catalog gives
   * none. The session catalog must be a persistent metastore: with Spark's in-memory catalog the
   * tables would be forgotten when the session ends while their files stayed, and the next run
   * could not create them again.
   */
  private static String schemaLocation(SparkSession spark, String location, String schema) {
    // Only the session catalog can be the in-memory one; another catalog name is a plugin (or
    // Unity Catalog's), and CREATE SCHEMA below says so when there is none.
    boolean sessionCatalog = location.toLowerCase(Locale.ROOT).startsWith("spark_catalog.");
    if (sessionCatalog
        && "in-memory".equals(spark.conf().get("spark.sql.catalogImplementation", "in-memory"))) {
      throw new ConfigException(
          List.of(
              "--warehouse: "
                  + location
                  + " names a metastore schema, but this session's catalog is Spark's in-memory"
                  + " one, which forgets tables when the run ends; expected"
                  + " spark.sql.catalogImplementation=hive (a Hive metastore, or Glue on EMR), a"
                  + " Unity Catalog catalog on Databricks, or a directory (write ./"
                  + location
                  + " for a directory of that name)"));
    }
    try {
      spark.sql("CREATE SCHEMA IF NOT EXISTS " + schema);
      for (Row info : spark.sql("DESCRIBE SCHEMA EXTENDED " + schema).collectAsList()) {
        if ("Location".equalsIgnoreCase(info.getString(0).strip())) {
          String described = info.isNullAt(1) ? "" : info.getString(1).strip();
          if (described.isEmpty()) {
            return null;
          }
          return described.endsWith("/")
              ? described.substring(0, described.length() - 1)
              : described;
        }
      }
      // Unity Catalog leaves a schema without its own managed location blank.
      return null;
    } catch (Exception e) {
      // Also SparkException, which Scala throws undeclared (a nested namespace in the session
      // catalog, a catalog plugin that is not there).
      throw new ConfigException(
          List.of(
              "--warehouse: cannot create or describe schema "
                  + location
                  + ": "
                  + firstLine(e)
                  + "; expected a schema this session's catalog can create or use, with a"
                  + " location (write ./"
                  + location
                  + " for a directory of that name)"));
    }
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
    // A schema's tables are the catalog's to reach; its files are ours.
    if (schema == null) {
      requireReachable(root);
    }
    if (!files.equals(root)) {
      requireReachable(files);
    }
  }

  private void requireReachable(String root) {
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

  /**
   * Where files that are not tables go (LLM call journals, retrieval indexes, shard builds,
   * reports): {@code run.files_dir}, else the directory, or the schema's location.
   */
  public String root() {
    return files;
  }

  /** Where a table's files are: its directory, or the location the catalog gave it. */
  public String path(String table) {
    if (schema == null) {
      return root + "/" + table;
    }
    if (exists(table)) {
      return delta(table).detail().select("location").head().getString(0);
    }
    // Not created yet: where the schema would place it, when the schema says.
    return root == null ? sqlName(table) : root + "/" + table;
  }

  /** The name SQL knows a table by: {@code `catalog`.`schema`.`table`}, or a path when none. */
  public String sqlName(String table) {
    return schema != null ? schema + ".`" + table + "`" : "delta.`" + path(table) + "`";
  }

  public boolean exists(String table) {
    return schema != null
        ? spark.catalog().tableExists(sqlName(table))
        : DeltaTable.isDeltaTable(spark, path(table));
  }

  private DeltaTable delta(String table) {
    if (schema == null) {
      return DeltaTable.forPath(spark, path(table));
    }
    // Open-source Delta's forName parses at most two parts, so a session-catalog table goes by
    // schema.table; Databricks' takes a Unity Catalog table's three.
    return DeltaTable.forName(
        spark,
        schema.toLowerCase(Locale.ROOT).startsWith("`spark_catalog`.")
            ? sqlName(table).substring("`spark_catalog`.".length())
            : sqlName(table));
  }

  public Dataset<Row> read(String table) {
    if (!exists(table)) {
      throw new IllegalArgumentException(
          "table '"
              + table
              + "' does not exist in warehouse "
              + (schema != null ? schema : root)
              + "; tables here: "
              + tables());
    }
    return schema != null
        ? spark.read().table(sqlName(table))
        : spark.read().format("delta").load(path(table));
  }

  /** The current Delta version of a table, or -1 if it does not exist. */
  public long version(String table) {
    if (!exists(table)) {
      return -1;
    }
    return snapshot(table).version();
  }

  /**
   * The table's latest snapshot, from its Delta log: what a write needs to know of the table (its
   * version, properties, last commit) without a Spark job, which {@code detail()} and {@code
   * history()} each cost.
   */
  private Snapshot snapshot(String table) {
    return delta(table).deltaLog().update(false, Option.empty(), Option.empty());
  }

  /** Names of the Delta tables in the warehouse, sorted. */
  public List<String> tables() {
    if (schema != null) {
      return spark.sql("SHOW TABLES IN " + schema).collectAsList().stream()
          .filter(row -> !row.<Boolean>getAs("isTemporary"))
          .map(row -> row.<String>getAs("tableName"))
          .sorted()
          .toList();
    }
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
    if (exists(contract.table())) {
      String written =
          snapshot(contract.table())
              .metadata()
              .configuration()
              .get(CONTRACT_PROPERTY)
              .getOrElse(() -> null);
      if (written != null && !written.equals(contract.versionTag())) {
        throw new IllegalStateException(
            "table "
                + contract.table()
                + " at "
                + path(contract.table())
                + " was written under contract "
                + written
                + ", but this build expects "
                + contract.versionTag()
                + "; migrate or use a new warehouse");
      }
      return;
    }
    if (schema != null) {
      createManaged(contract);
      return;
    }
    DeltaTableBuilder builder =
        DeltaTable.createIfNotExists(spark)
            .location(path(contract.table()))
            .addColumns(contract.schema())
            .comment(contract.description())
            .property(CONTRACT_PROPERTY, contract.versionTag());
    if (!contract.partitionBy().isEmpty()) {
      builder = builder.partitionedBy(contract.partitionBy().toArray(String[]::new));
    }
    builder.execute();
  }

  /**
   * Creates a schema's table as a managed table, so the catalog places it (Unity Catalog refuses a
   * location inside a managed schema's storage). In SQL, because Delta's table builder takes only
   * two-part names and a schema's tables have three.
   */
  private void createManaged(Contract contract) {
    StringBuilder ddl =
        new StringBuilder("CREATE TABLE IF NOT EXISTS ")
            .append(sqlName(contract.table()))
            .append(" (")
            .append(contract.schema().toDDL())
            .append(") USING delta");
    if (!contract.partitionBy().isEmpty()) {
      ddl.append(" PARTITIONED BY (")
          .append(
              contract.partitionBy().stream()
                  .map(c -> "`" + c + "`")
                  .collect(Collectors.joining(", ")))
          .append(")");
    }
    ddl.append(" COMMENT ")
        .append(sqlString(contract.description()))
        .append(" TBLPROPERTIES (")
        .append(sqlString(CONTRACT_PROPERTY))
        .append(" = ")
        .append(sqlString(contract.versionTag()))
        .append(")");
    spark.sql(ddl.toString());
  }

  private static String sqlString(String value) {
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'";
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
    if (schema != null) {
      // saveAsTable appends by column name, like the merges; insertInto would go by position.
      conformed.write().format("delta").mode("append").saveAsTable(sqlName(contract.table()));
    } else {
      conformed.write().format("delta").mode("append").save(path(contract.table()));
    }
    return lastCommit(contract.table());
  }

  /**
   * Appends rows without a merge and without a checking pass of their own (rows that the same pass
   * computes, a run's own {@code runs} row): the contract's row rules are checked as the rows are
   * written ({@link ContractEnforcer#enforceInline}), and nothing commits if one breaks them. The
   * caller guarantees that the rows' keys are unique and absent from the table; a second writer
   * appending the same new key at the same time would record it twice, which the merges would have
   * caught.
   */
  public WriteResult appendComputed(Contract contract, Dataset<Row> rows) {
    ensureTable(contract);
    Dataset<Row> checked = new ContractEnforcer(contract).enforceInline(rows);
    if (schema != null) {
      checked.write().format("delta").mode("append").saveAsTable(sqlName(contract.table()));
    } else {
      checked.write().format("delta").mode("append").save(path(contract.table()));
    }
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
      if (FirstRows.none(present)) {
        return WriteResult.unchanged(table);
      }
      String on =
          keyColumns.stream()
              .map(k -> "t.`" + k + "` = s.`" + k + "`")
              .collect(Collectors.joining(" AND "));
      delta(table).as("t").merge(present.as("s"), on).whenMatched().delete().execute();
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
      OptimisticTransaction emptyTable = transactionIfEmpty(table);
      if (emptyTable != null) {
        return insertAll(emptyTable, table, conformed);
      }
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
        if (FirstRows.none(source)) {
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
        DeltaMergeBuilder merge = delta(table).as("t").merge(source.as("s"), on);
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

  /**
   * A transaction on the table's latest snapshot when that snapshot's checksum file says it holds
   * no data file; null otherwise, and when there is no checksum to tell without a Spark job.
   * Package-private for the test of the conflict below.
   */
  OptimisticTransaction transactionIfEmpty(String table) {
    OptimisticTransaction txn = delta(table).deltaLog().startTransaction();
    Option<VersionChecksum> checksum = txn.snapshot().checksumOpt();
    return checksum.isDefined() && checksum.get().numFiles() == 0 ? txn : null;
  }

  /**
   * Writes every row of {@code rows} into the empty table {@code txn} read, as one commit (none
   * when there are no rows). The transaction declares that it read the whole table: a commit that
   * another writer makes in between (a MERGE, another first write) fails this one with Delta's
   * concurrent-append conflict, as it would have failed the MERGE, rather than adding its keys a
   * second time. Only a blind append (the {@code runs} table's) passes, as it does a MERGE.
   */
  WriteResult insertAll(OptimisticTransaction txn, String table, Dataset<Row> rows) {
    txn.readWholeTable();
    Seq<FileAction> written = txn.writeFiles(rows);
    if (written.isEmpty()) {
      return WriteResult.unchanged(table);
    }
    @SuppressWarnings("unchecked")
    Seq<Action> actions = (Seq<Action>) (Seq<?>) written;
    txn.commit(
        actions,
        new DeltaOperations.Write(SaveMode.Append, Option.empty(), Option.empty(), Option.empty()));
    return lastCommit(table);
  }

  /** What the table's latest commit wrote, from its commit info (as {@code history(1)} has it). */
  private WriteResult lastCommit(String table) {
    Snapshot latest = snapshot(table);
    long version = latest.version();
    Map<String, String> metrics = Map.of();
    Iterator<Tuple2<Object, Seq<Action>>> commits =
        latest.deltaLog().getChanges(version, version, true);
    while (commits.hasNext()) {
      for (Action action : JavaConverters.seqAsJavaList(commits.next()._2())) {
        if (action instanceof CommitInfo info && info.operationMetrics().isDefined()) {
          metrics = JavaConverters.mapAsJavaMap(info.operationMetrics().get());
        }
      }
    }
    long inserted = metric(metrics, "numTargetRowsInserted", metric(metrics, "numOutputRows", 0));
    return new WriteResult(
        table,
        inserted,
        metric(metrics, "numTargetRowsUpdated", 0),
        metric(metrics, "numTargetRowsDeleted", 0),
        version);
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
