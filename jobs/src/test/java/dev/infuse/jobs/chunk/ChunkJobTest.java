package dev.infuse.jobs.chunk;

import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.jobs.QualitySample;
import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.jobs.io.Warehouse;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ChunkJobTest {
  private final SparkSession spark = SparkTestSession.get();
  private String warehouse;

  /** The QuALITY sample is ingested once per test JVM; every test chunks its own copy of it. */
  @BeforeEach
  void ingestSample() {
    warehouse = QualitySample.ingestedCopy("chunk");
  }

  @Test
  void chunksMapBackIntoTheirDocumentsExactlyAndStayWithinBudget() {
    CliResult result =
        SparkTestSession.cli("chunk", "--warehouse", warehouse, "--max-tokens", "256");
    assertThat(result.code()).as(result.toString()).isZero();
    Warehouse w = new Warehouse(spark, warehouse);
    w.registerViews();
    long mismatched =
        spark
            .sql(
                "SELECT c.chunk_id FROM chunks c JOIN documents d USING (doc_id)"
                    + " WHERE substring(d.text, c.char_start + 1, c.char_end - c.char_start) <> c.text")
            .count();
    assertThat(mismatched).isZero();
    Row stats =
        spark
            .sql("SELECT count(*), max(n_tokens), count(DISTINCT doc_id), min(ordinal) FROM chunks")
            .head();
    assertThat(stats.getLong(0)).isGreaterThan(50);
    assertThat(stats.getInt(1)).isLessThanOrEqualTo(256);
    assertThat(stats.getLong(2)).isEqualTo(5);
    // Consecutive chunks of a document do not overlap and leave at most whitespace between them.
    long badGaps =
        spark
            .sql(
                "SELECT * FROM (SELECT c.doc_id, c.char_end,"
                    + " lead(c.char_start) OVER (PARTITION BY c.doc_id ORDER BY c.ordinal) AS next FROM chunks c) g"
                    + " JOIN documents d ON d.doc_id = g.doc_id WHERE g.next IS NOT NULL"
                    + " AND (g.next < g.char_end OR substring(d.text, g.char_end + 1, g.next - g.char_end) RLIKE '\\S')")
            .count();
    assertThat(badGaps).isZero();
    // Most chunks end at a sentence or paragraph end, not mid-sentence.
    double sentenceEnds =
        spark
            .sql(
                "SELECT avg(CASE WHEN text RLIKE '[.!?\"\\')]\\\\s*$' THEN 1D ELSE 0D END) FROM chunks")
            .head()
            .getDouble(0);
    assertThat(sentenceEnds).isGreaterThan(0.8);
  }

  @Test
  void rechunkingWithNewSettingsReplacesChunksAndARerunCommitsNothing() {
    assertThat(
            SparkTestSession.cli("chunk", "--warehouse", warehouse, "--max-tokens", "128").code())
        .isZero();
    Warehouse w = new Warehouse(spark, warehouse);
    long small = w.read("chunks").count();
    assertThat(
            SparkTestSession.cli("chunk", "--warehouse", warehouse, "--max-tokens", "512").code())
        .isZero();
    long version = w.version("chunks");
    assertThat(w.read("chunks").filter("max_tokens <> 512").count()).isZero();
    assertThat(w.read("chunks").count()).isLessThan(small);

    CliResult again =
        SparkTestSession.cli("chunk", "--warehouse", warehouse, "--max-tokens", "512");
    assertThat(again.out()).contains("chunks: unchanged (no commit)");
    assertThat(w.version("chunks")).isEqualTo(version);
    assertThat(w.read("runs").filter("job = 'chunk' AND status = 'succeeded'").count())
        .isEqualTo(3);
  }

  @Test
  void twoRagRecipesKeepTheirOwnChunksAndRechunkingOneLeavesTheOtherAlone() {
    assertThat(
            SparkTestSession.cli("chunk", "--warehouse", warehouse, "--max-tokens", "128").code())
        .isZero();
    Warehouse w = new Warehouse(spark, warehouse);
    var defaults = w.read("chunks").orderBy("chunk_id").collectAsList();

    // The same cut under another recipe: its own rows, with ids that cannot collide.
    CliResult alt =
        SparkTestSession.cli(
            "chunk", "--warehouse", warehouse, "--max-tokens", "128", "--set", "rag.recipe=alt");
    assertThat(alt.code()).as(alt.toString()).isZero();
    assertThat(alt.out()).contains("rag.recipe alt");
    assertThat(w.read("chunks").filter("rag_recipe = 'alt'").count()).isEqualTo(defaults.size());
    assertThat(w.read("chunks").select("chunk_id").distinct().count())
        .isEqualTo(2L * defaults.size());

    // Re-cutting alt at another size replaces only alt's chunks.
    assertThat(
            SparkTestSession.cli(
                    "chunk",
                    "--warehouse",
                    warehouse,
                    "--max-tokens",
                    "512",
                    "--set",
                    "rag.recipe=alt")
                .code())
        .isZero();
    assertThat(w.read("chunks").filter("rag_recipe = 'alt' AND max_tokens <> 512").count())
        .isZero();
    assertThat(
            w.read("chunks").filter("rag_recipe = 'default'").orderBy("chunk_id").collectAsList())
        .isEqualTo(defaults);

    CliResult badName =
        SparkTestSession.cli("chunk", "--warehouse", warehouse, "--set", "rag.recipe=Not OK");
    assertThat(badName.code()).isEqualTo(2);
    assertThat(badName.err()).contains("rag.recipe: got Not OK, expected a name of lowercase");
  }

  @Test
  void aTableWrittenUnderAnotherContractVersionIsRefusedAndLeftAlone() {
    assertThat(
            SparkTestSession.cli("chunk", "--warehouse", warehouse, "--max-tokens", "128").code())
        .isZero();
    Warehouse w = new Warehouse(spark, warehouse);
    // As if an older build had created the table: its contract property names another version.
    spark.sql(
        "ALTER TABLE delta.`"
            + w.path("chunks")
            + "` SET TBLPROPERTIES ('"
            + Warehouse.CONTRACT_PROPERTY
            + "' = 'chunks@0')");
    long version = w.version("chunks");
    long rows = w.read("chunks").count();

    CliResult refused =
        SparkTestSession.cli("chunk", "--warehouse", warehouse, "--max-tokens", "512");

    assertThat(refused.code()).as(refused.toString()).isNotZero();
    assertThat(refused.err())
        .contains("table chunks at " + w.path("chunks"))
        .contains("was written under contract chunks@0, but this build expects chunks@")
        .contains("migrate or use a new warehouse");
    assertThat(w.version("chunks")).isEqualTo(version);
    assertThat(w.read("chunks").count()).isEqualTo(rows);
    assertThat(w.read("chunks").filter("max_tokens <> 128").count()).isZero();
  }

  @Test
  void aTokenizerFileIsBroadcastAndNamedByItsHash() throws IOException {
    Path tokenizer = SparkTestSession.tempDir("tok").resolve("tokenizer.json");
    try (InputStream in =
        getClass().getClassLoader().getResourceAsStream("all-minilm-l6-v2-tokenizer.json")) {
      Files.write(tokenizer, in.readAllBytes());
    }
    CliResult result =
        SparkTestSession.cli(
            "chunk",
            "--warehouse",
            warehouse,
            "--tokenizer",
            tokenizer.toString(),
            "--corpus",
            "quality",
            "--max-tokens",
            "300",
            "--overlap-tokens",
            "30");
    assertThat(result.code()).as(result.toString()).isZero();
    Warehouse w = new Warehouse(spark, warehouse);
    assertThat(w.read("chunks").select("tokenizer").distinct().head().getString(0))
        .startsWith("tokenizer.json@");
    assertThat(w.read("chunks").filter("overlap_tokens = 30").count())
        .isEqualTo(w.read("chunks").count());
  }

  @Test
  void aMissingTokenizerIsAConfigErrorNamingThePath() {
    CliResult result =
        SparkTestSession.cli(
            "chunk", "--warehouse", warehouse, "--tokenizer", "/nope/tokenizer.json");
    assertThat(result.code()).isEqualTo(2);
    assertThat(result.err()).contains("chunk.tokenizer: got /nope/tokenizer.json");
  }
}
