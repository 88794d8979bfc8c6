package dev.infuse.jobs.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.config.ConfigException;
import dev.infuse.jobs.contract.Contract;
import dev.infuse.jobs.contract.ContractEnforcer;
import dev.infuse.jobs.contract.ContractViolationException;
import dev.infuse.jobs.contract.Contracts;
import dev.infuse.jobs.train.TrainJob;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.delta.ConcurrentAppendException;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class WarehouseTest {
  private final SparkSession spark = SparkTestSession.get();
  private final Contract documents = Contracts.load("documents");
  private final Contract questions = Contracts.load("questions");
  private final Contract chunks = Contracts.load("chunks");
  private Warehouse warehouse;

  @BeforeEach
  void newWarehouse() {
    warehouse = new Warehouse(spark, SparkTestSession.tempDir("warehouse").toString());
  }

  @Test
  void aSchemaIsTwoIdentifiersAndEverythingElseIsADirectory() {
    assertThat(Warehouse.isSchema("main.infuse")).isTrue();
    assertThat(Warehouse.isSchema("spark_catalog.infuse_2")).isTrue();
    assertThat(Warehouse.isSchema("./runs.v2")).isFalse();
    assertThat(Warehouse.isSchema("warehouse")).isFalse();
    assertThat(Warehouse.isSchema("s3://bucket/warehouse")).isFalse();
    assertThat(Warehouse.isSchema("/Volumes/main/infuse/data")).isFalse();
    assertThat(Warehouse.isSchema("main.infuse.more")).isFalse();
    // A model directory cannot be relative to a schema: it has no directory of its own.
    assertThatThrownBy(() -> TrainJob.modelDir("main.infuse", "models/tiny"))
        .hasMessageContaining("train.model_dir: got the relative path models/tiny")
        .hasMessageContaining("metastore schema");
    assertThat(TrainJob.modelDir("main.infuse", "/dbfs/models/tiny").toString())
        .isEqualTo("/dbfs/models/tiny");
  }

  @Test
  void aSchemaOfACatalogThatIsNotThereFailsNamingItAndTheDirectorySpelling() {
    assertThatThrownBy(() -> new Warehouse(spark, "nocatalog.infuse"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--warehouse: cannot create or describe schema nocatalog.infuse")
        .hasMessageContaining("write ./nocatalog.infuse for a directory of that name");
  }

  @Test
  void filesDirMovesWhatIsNotATableButNotTheTables() {
    String tables = SparkTestSession.tempDir("tables").toString();
    String files = SparkTestSession.tempDir("files").toString();
    Warehouse split = new Warehouse(spark, tables, files);
    split.upsert(documents, docs(doc("c:1", "one")));
    assertThat(split.root()).isEqualTo("file:" + files);
    assertThat(split.path("documents")).isEqualTo("file:" + tables + "/documents");
    assertThat(new Warehouse(spark, tables).read("documents").count()).isEqualTo(1);
  }

  @Test
  void rerunOfTheSameRowsCommitsNothing() {
    Dataset<Row> rows = docs(doc("c:1", "one"), doc("c:2", "two"));
    WriteResult first = warehouse.upsert(documents, rows);
    assertThat(first.inserted()).isEqualTo(2);
    long version = warehouse.version("documents");

    WriteResult again = warehouse.upsert(documents, rows);
    assertThat(again.committed()).isFalse();
    assertThat(warehouse.version("documents")).isEqualTo(version);
  }

  @Test
  void aFirstWriteIsOneWriteCommitAndTheNextOnesMerge() {
    warehouse.ensureTable(documents);
    WriteResult first = warehouse.upsert(documents, docs(doc("c:1", "one"), doc("c:2", "two")));
    WriteResult second = warehouse.upsert(documents, docs(doc("c:2", "TWO"), doc("c:3", "three")));
    assertThat(first.inserted()).isEqualTo(2);
    assertThat(second.inserted()).isEqualTo(1);
    assertThat(second.updated()).isEqualTo(1);
    List<String> operations =
        spark
            .sql("DESCRIBE HISTORY " + warehouse.sqlName("documents"))
            .orderBy("version")
            .select("operation")
            .as(org.apache.spark.sql.Encoders.STRING())
            .collectAsList();
    // Created empty, then the first rows without a MERGE (nothing to match), then a MERGE.
    assertThat(operations).containsExactly("CREATE TABLE", "WRITE", "MERGE");
    assertThat(warehouse.read("documents").count()).isEqualTo(3);
  }

  @Test
  void aFirstWriteFailsWhenAnotherWriterCommitsBeforeIt() {
    warehouse.ensureTable(documents);
    // This writer finds the table empty, then another writer's first write lands first, with the
    // same key: committing now would hold the key twice, so Delta must refuse it as it refuses a
    // MERGE that read a version since overtaken.
    var late = warehouse.transactionIfEmpty("documents");
    assertThat(late).isNotNull();
    warehouse.upsert(documents, docs(doc("c:1", "first")));
    Dataset<Row> same = new ContractEnforcer(documents).conform(docs(doc("c:1", "late")));
    assertThatThrownBy(() -> warehouse.insertAll(late, "documents", same))
        .isInstanceOf(ConcurrentAppendException.class);
    assertThat(warehouse.read("documents").collectAsList())
        .singleElement()
        .satisfies(row -> assertThat(row.<String>getAs("text")).isEqualTo("first"));
    // A table that holds rows gives no transaction for the empty path.
    assertThat(warehouse.transactionIfEmpty("documents")).isNull();
  }

  @Test
  void changedRowsAreUpdatedAndNewOnesInserted() {
    warehouse.upsert(documents, docs(doc("c:1", "one"), doc("c:2", "two")));
    WriteResult result =
        warehouse.upsert(
            documents, docs(doc("c:1", "one"), doc("c:2", "TWO"), doc("c:3", "three")));
    assertThat(result.inserted()).isEqualTo(1);
    assertThat(result.updated()).isEqualTo(1);
    assertThat(warehouse.read("documents").filter("doc_id = 'c:2'").head().getAs("text").toString())
        .isEqualTo("TWO");
    assertThat(warehouse.read("documents").count()).isEqualTo(3);
  }

  @Test
  void replaceWithinDropsStaleRowsOfTheScopeOnly() {
    warehouse.replaceWithin(
        chunks,
        chunkRows(chunk("a0", "d:a", 0), chunk("a1", "d:a", 1), chunk("b0", "d:b", 0)),
        "doc_id");
    WriteResult result =
        warehouse.replaceWithin(chunks, chunkRows(chunk("a0", "d:a", 0)), "doc_id");
    assertThat(result.deleted()).isEqualTo(1);
    assertThat(
            warehouse
                .read("chunks")
                .select("chunk_id")
                .as(org.apache.spark.sql.Encoders.STRING())
                .collectAsList())
        .containsExactlyInAnyOrder("a0", "b0");
  }

  @Test
  void constraintViolationNamesTableColumnValueAndExpectation() {
    Row bad =
        RowFactory.create(
            "quality:q1",
            "quality:1",
            "quality",
            "dev",
            "Why?",
            List.of("a", "b"),
            "C",
            7,
            "mcq",
            List.of(),
            Map.of());
    assertThatThrownBy(
            () ->
                warehouse.upsert(
                    questions, spark.createDataFrame(List.of(bad), questions.schema())))
        .isInstanceOf(ContractViolationException.class)
        .hasMessageContaining("row question_id=quality:q1")
        .hasMessageContaining(
            "table questions, column gold_index: got 7, expected an index into options, 0..size(options)-1");
  }

  @Test
  void nullInRequiredColumnAndDuplicateKeysAreViolations() {
    // A job's rows arrive with nullable columns; the contract, not the schema, must catch the null.
    StructType nullable =
        new StructType(
            java.util.Arrays.stream(documents.schema().fields())
                .map(f -> f.copy(f.name(), f.dataType(), true, f.metadata()))
                .toArray(StructField[]::new));
    assertThatThrownBy(
            () ->
                warehouse.upsert(
                    documents, spark.createDataFrame(List.of(doc("c:1", null)), nullable)))
        .hasMessageContaining("table documents, column text: got null, expected a non-null string");
    assertThatThrownBy(() -> warehouse.upsert(documents, docs(doc("c:1", "x"), doc("c:1", "y"))))
        .hasMessageContaining(
            "table documents, primary key [doc_id]: got 2 rows with doc_id=c:1, expected unique keys");
  }

  @Test
  void schemaMismatchNamesTheColumn() {
    Dataset<Row> wrongType =
        docs(doc("c:1", "x")).withColumn("title", org.apache.spark.sql.functions.lit(3));
    assertThatThrownBy(() -> warehouse.upsert(documents, wrongType))
        .hasMessageContaining("table documents, column title: got int, expected string");
    Dataset<Row> extra =
        docs(doc("c:1", "x")).withColumn("colour", org.apache.spark.sql.functions.lit("red"));
    assertThatThrownBy(() -> warehouse.upsert(documents, extra))
        .hasMessageContaining("table documents, column colour: got an undeclared column");
  }

  @Test
  void tablesCarryTheirContractAndColumnComments() {
    warehouse.upsert(documents, docs(doc("c:1", "one")));
    Row detail = spark.sql("DESCRIBE DETAIL delta.`" + warehouse.path("documents") + "`").head();
    assertThat(detail.<String, String>getJavaMap(detail.fieldIndex("properties")))
        .containsEntry(Warehouse.CONTRACT_PROPERTY, "documents@1");
    assertThat(detail.getList(detail.fieldIndex("partitionColumns"))).containsExactly("corpus");
    assertThat(warehouse.read("documents").schema().apply("doc_id").getComment().get())
        .startsWith("Stable key");
    assertThat(warehouse.tables()).containsExactly("documents");
  }

  private Dataset<Row> docs(Row... rows) {
    return spark.createDataFrame(List.of(rows), documents.schema());
  }

  private static Row doc(String id, String text) {
    return RowFactory.create(id, "c", "title " + id, text, "test", "CC0", Map.of("k", "v"));
  }

  private Dataset<Row> chunkRows(Row... rows) {
    return spark.createDataFrame(List.of(rows), chunks.schema());
  }

  private static Row chunk(String id, String doc, int ordinal) {
    return RowFactory.create(
        id, doc, ordinal, "text", 0, 4, 1, "tok", 1024, 0, "tokens", null, null, null, null,
        "default");
  }
}
