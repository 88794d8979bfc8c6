package dev.infuse.jobs.retrieve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.jobs.QualitySample;
import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.udfs.retrieve.ChunkText;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/** What BM25 indexes is each chunk's metadata prefix, then its text: {@link ChunkText#indexed}. */
class IndexedChunkTextTest {
  private final SparkSession spark = SparkTestSession.get();

  @Test
  void bm25IndexesThePrefixThenTheChunkText() {
    String warehouse = QualitySample.ingestedCopy("indexed-text");
    CliResult chunked =
        SparkTestSession.cli(
            "chunk",
            "--warehouse",
            warehouse,
            "--unit",
            "chars",
            "--set",
            "chunk.prefix_template=Title: {title}. ");
    assertThat(chunked.code()).as(chunked.toString()).isZero();
    Warehouse w = new Warehouse(spark, warehouse);
    Map<String, Row> chunks =
        w.read("chunks").select("chunk_id", "context_prefix", "text").collectAsList().stream()
            .collect(Collectors.toMap(r -> r.getString(0), r -> r));
    int checked = 0;
    for (Row row : IndexJob.chunksWithCorpus(w, "default").collectAsList()) {
      Row chunk = chunks.get(row.getAs("chunk_id"));
      assertThat(chunk.getString(1)).startsWith("Title: ");
      assertThat(row.<String>getAs("text"))
          .isEqualTo(ChunkText.indexed(chunk.getString(1), chunk.getString(2)));
      assertThat(row.<String>getAs("corpus")).isEqualTo("quality");
      checked++;
    }
    assertThat(checked).isEqualTo(chunks.size()).isGreaterThan(100);
  }
}
