package dev.infuse.jobs.shards;

import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.contract.Contracts;
import dev.infuse.jobs.io.Warehouse;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

class ShardSourcesTest {
  private final SparkSession spark = SparkTestSession.get();

  @Test
  void everySourceReadsAsTextWithItsTemplateKindAndCorpus() {
    String root = SparkTestSession.tempDir("sources").toString();
    Warehouse warehouse = new Warehouse(spark, root);
    warehouse.append(
        Contracts.load("documents"),
        spark.createDataFrame(
            List.of(
                RowFactory.create(
                    "quality:a",
                    "quality",
                    "A",
                    "Article A.",
                    "f",
                    null,
                    scala.collection.immutable.Map$.MODULE$.empty()),
                RowFactory.create(
                    "medec:b",
                    "medec",
                    null,
                    "Note B.",
                    "f",
                    null,
                    scala.collection.immutable.Map$.MODULE$.empty())),
            Contracts.load("documents").schema()));
    warehouse.append(
        Contracts.load("synthetic_qa"),
        spark.createDataFrame(
            List.of(
                RowFactory.create(
                    "q1", "quality:a", null, "Who?", "Ann.", "g", "gen-qa", 1, 0L, "k1")),
            Contracts.load("synthetic_qa").schema()));
    warehouse.append(
        Contracts.load("synthetic_docs"),
        spark.createDataFrame(
            List.of(
                RowFactory.create(
                    "s1",
                    "quality:a",
                    "rephrase",
                    "simple",
                    List.of(),
                    "A, simply.",
                    3,
                    "g",
                    "gen-docs",
                    1,
                    0L,
                    "k2")),
            Contracts.load("synthetic_docs").schema()));
    String replay = SparkTestSession.tempDir("replay").resolve("replay.parquet").toString();
    spark
        .createDataFrame(
            List.of(RowFactory.create("General text.")),
            new org.apache.spark.sql.types.StructType().add("text", "string"))
        .write()
        .parquet(replay);

    Map<String, Row> bySource = new java.util.HashMap<>();
    for (Row row : ShardSources.read(spark, warehouse, "quality", replay).collectAsList()) {
      bySource.put(row.getAs("source"), row);
    }
    assertThat(bySource)
        .containsOnlyKeys("synthetic_qa", "documents", "synthetic_docs.rephrase", "replay");
    assertThat(bySource.get("synthetic_qa").<String>getAs("text"))
        .isEqualTo("Question: Who?\nAnswer: Ann.");
    assertThat(bySource.get("synthetic_qa").<String>getAs("prompt"))
        .isEqualTo("Question: Who?\nAnswer: ");
    assertThat(bySource.get("synthetic_qa").<String>getAs("completion")).isEqualTo("Ann.");
    assertThat(bySource.get("documents").<String>getAs("row_id")).isEqualTo("quality:a");
    assertThat(bySource.get("replay").<String>getAs("row_id")).hasSize(64);
  }
}
