package dev.infuse.tests;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code --warehouse catalog.schema}: the tables live in a metastore, the way Unity Catalog and
 * Glue users keep them. Here the metastore is Spark's embedded Hive one, on Derby; each job runs in
 * its own JVM, so a table the next job finds can only have been found by name through the
 * metastore.
 */
@Tag("production")
class MetastoreWarehouseTest {
  private static final String SCHEMA = "spark_catalog.infuse_it";
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void jobsInSeparateProcessesCreateReadAndMergeTablesByNameInAHiveMetastore() throws Exception {
    Path home = SparkTestSession.tempDir("metastore");
    Path sparkWarehouse = home.resolve("spark-warehouse");

    infuse(
        home,
        "ingest",
        "--format",
        "quality",
        "--input",
        SparkTestSession.repoRoot().resolve("samples/quality/quality_dev_sample.jsonl").toString());
    // gen-qa finds documents by name, writes synthetic_qa and llm_calls as managed tables, and
    // journals its calls under run.files_dir, a directory apart from the schema.
    Path files = home.resolve("files");
    infuse(
        home,
        "gen-qa",
        "--set",
        "gen_qa.unit=document",
        "--set",
        "gen_qa.max_units=3",
        "--set",
        "run.files_dir=" + files);

    JsonNode counts =
        JSON.readTree(
            infuse(
                    home,
                    "sql",
                    "--json",
                    "SELECT (SELECT count(*) FROM spark_catalog.infuse_it.documents) AS documents,"
                        + " (SELECT count(*) FROM spark_catalog.infuse_it.synthetic_qa) AS qa,"
                        + " (SELECT count(*) FROM spark_catalog.infuse_it.llm_calls) AS calls,"
                        + " (SELECT count(*) FROM spark_catalog.infuse_it.runs"
                        + "  WHERE status = 'succeeded') AS runs")
                .lines()
                .filter(line -> line.startsWith("{"))
                .findFirst()
                .orElseThrow());
    assertThat(counts.get("documents").asLong()).isPositive();
    assertThat(counts.get("calls").asLong()).isEqualTo(3);
    assertThat(counts.get("qa").asLong()).isPositive();
    assertThat(counts.get("runs").asLong()).isEqualTo(2);

    // Managed tables, under the schema's location in the metastore's warehouse directory.
    Path schemaDir = sparkWarehouse.resolve("infuse_it.db");
    for (String table : List.of("documents", "synthetic_qa", "llm_calls", "runs", "quarantine")) {
      assertThat(schemaDir.resolve(table).resolve("_delta_log")).as(table).isDirectory();
    }
    assertThat(files.resolve("_journal/llm_calls")).isDirectory();
    assertThat(schemaDir.resolve("_journal")).doesNotExist();
    assertThat(home.resolve("metastore_db")).isDirectory();
  }

  @Test
  void aSchemaWithSparksInMemoryCatalogFailsNamingTheSettingToChange() {
    CliResult result =
        SparkTestSession.cli("sql", "--warehouse", "spark_catalog.nowhere", "SELECT 1");
    assertThat(result.code()).isEqualTo(2);
    assertThat(result.err())
        .contains("--warehouse: spark_catalog.nowhere names a metastore schema")
        .contains("spark.sql.catalogImplementation=hive")
        .contains("./spark_catalog.nowhere");
  }

  /** Runs {@code bin/infuse JOB --warehouse SCHEMA …} in its own JVM on the Derby metastore. */
  private static String infuse(Path home, String job, String... args) throws Exception {
    List<String> command =
        new ArrayList<>(
            List.of(
                SparkTestSession.repoRoot().resolve("bin/infuse").toString(),
                job,
                "--warehouse",
                SCHEMA));
    command.addAll(List.of(args));
    ProcessBuilder builder =
        new ProcessBuilder(command).directory(home.toFile()).redirectErrorStream(true);
    builder
        .environment()
        .put(
            "INFUSE_JAVA_OPTS",
            String.join(
                " ",
                "-Xmx1g",
                SparkTestSession.FAST_SMALL_JOBS_JAVA_OPTS,
                "-Dspark.sql.catalogImplementation=hive",
                "-Dspark.sql.warehouse.dir=" + home.resolve("spark-warehouse"),
                "-Dspark.hadoop.javax.jdo.option.ConnectionURL=jdbc:derby:;databaseName="
                    + home.resolve("metastore_db")
                    + ";create=true"));
    // The Hive client and Derby come from this module's test classpath (spark-hive); Infuse's jar
    // does not bundle them, as Databricks and EMR bring their own catalogs.
    builder
        .environment()
        .put(
            "INFUSE_CLASSPATH",
            System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")));
    Process process = builder.start();
    String printed = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(300, TimeUnit.SECONDS)).as(printed).isTrue();
    assertThat(process.exitValue()).as(job + ":\n" + printed).isZero();
    Files.writeString(home.resolve(job + ".log"), printed);
    return printed;
  }
}
