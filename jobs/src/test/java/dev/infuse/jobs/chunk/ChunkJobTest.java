package dev.infuse.jobs.chunk;

import static org.apache.spark.sql.functions.col;
import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.jobs.QualitySample;
import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.udfs.retrieve.ChunkText;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Encoders;
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
  void charChunksAreLangChainsWithAPrefixColumnAndNeverShareIdsWithTokenChunks()
      throws IOException {
    assertThat(
            SparkTestSession.cli("chunk", "--warehouse", warehouse, "--max-tokens", "1024").code())
        .isZero();
    Warehouse w = new Warehouse(spark, warehouse);
    List<String> tokenIds =
        w.read("chunks").select("chunk_id").as(Encoders.STRING()).collectAsList();

    Path config = SparkTestSession.tempDir("chunk-chars").resolve("chars.yaml");
    Files.writeString(
        config,
        "chunk:\n  unit: chars\n  prefix_template: \"Title: {title}\\nAuthor: {author}\\nYear"
            + " Written: {year}\\n\\n\"\n");
    CliResult result =
        SparkTestSession.cli("chunk", "--warehouse", warehouse, "--config", config.toString());
    assertThat(result.code()).as(result.toString()).isZero();
    assertThat(result.out())
        .contains(
            "chunks of at most 1024 characters (overlap 0, separators paragraph,line,word,char");
    w.registerViews();
    Row stats =
        spark
            .sql(
                "SELECT count(*), max(char_length(text)), count(DISTINCT doc_id),"
                    + " sum(CASE WHEN unit = 'chars' AND max_chars = 1024 AND overlap_chars = 0"
                    + " AND separators = 'paragraph,line,word,char' AND max_tokens IS NULL"
                    + " AND overlap_tokens IS NULL THEN 1 ELSE 0 END),"
                    + " sum(CASE WHEN n_tokens > 0 THEN 1 ELSE 0 END) FROM chunks")
            .head();
    long chunks = stats.getLong(0);
    // 107k characters of articles in chunks of at most 1024: at least 105 of them.
    assertThat(chunks).isGreaterThan(105);
    assertThat(stats.getInt(1)).isLessThanOrEqualTo(1024).isGreaterThan(1000);
    assertThat(stats.getLong(2)).isEqualTo(5);
    assertThat(stats.getLong(3)).isEqualTo(chunks);
    assertThat(stats.getLong(4)).isEqualTo(chunks);
    long mismatched =
        spark
            .sql(
                "SELECT c.chunk_id FROM chunks c JOIN documents d USING (doc_id)"
                    + " WHERE substring(d.text, c.char_start + 1, c.char_end - c.char_start) <> c.text")
            .count();
    assertThat(mismatched).isZero();
    // The sample has titles but no author or year: those lines of the template are left out.
    long wrongPrefix =
        spark
            .sql(
                "SELECT c.chunk_id FROM chunks c JOIN documents d USING (doc_id)"
                    + " WHERE c.context_prefix IS DISTINCT FROM concat('Title: ', d.title, '\\n\\n')")
            .count();
    assertThat(wrongPrefix).isZero();
    List<String> charIds =
        w.read("chunks").select("chunk_id").as(Encoders.STRING()).collectAsList();
    assertThat(charIds).doesNotContainAnyElementsOf(tokenIds);
    // The column that BM25 and the embedder read is ChunkText.indexed of each row.
    for (Row row :
        w.read("chunks")
            .select(col("context_prefix"), col("text"), ChunkJob.indexedText().as("indexed"))
            .limit(20)
            .collectAsList()) {
      assertThat(row.getString(2)).isEqualTo(ChunkText.indexed(row.getString(0), row.getString(1)));
      assertThat(row.getString(2)).startsWith("Title: ").endsWith(row.getString(1));
    }
  }

  @Test
  void badCharSettingsAreConfigErrorsNamingTheOption() {
    CliResult result =
        SparkTestSession.cli(
            "chunk",
            "--warehouse",
            warehouse,
            "--unit",
            "words",
            "--max-chars",
            "8",
            "--set",
            "chunk.prefix_template=By {writer}");
    assertThat(result.code()).isEqualTo(2);
    assertThat(result.err())
        .contains("chunk.unit: got 'words', expected tokens or chars")
        .contains("chunk.max_chars: got 8, expected an integer >= 16")
        .contains("chunk.prefix_template: got unknown field {writer}");
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
