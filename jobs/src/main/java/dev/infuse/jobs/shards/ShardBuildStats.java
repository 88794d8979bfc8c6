package dev.infuse.jobs.shards;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.substring_index;

import dev.infuse.udfs.decontam.DecontaminatedText;
import dev.infuse.udfs.mix.MixtureSpec;
import dev.infuse.udfs.mix.SourcePlan;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * A shard build's {@code stats.json}: per source, how many rows were read, dropped by dedup and
 * decontamination, tokenized, planned and sampled; per format, what the shards hold. Read it to see
 * where a mixture's tokens went.
 */
final class ShardBuildStats {
  private ShardBuildStats() {}

  /** Its name in a build directory. */
  static final String FILE = "stats.json";

  /**
   * The file's content.
   *
   * @param drops dedup's drops, keyed {@code <source>/<row_id>}
   * @param decontaminationOutcomes rows per (source, outcome) of the decontamination scan; null
   *     when decontamination is off
   * @param expected per source, [texts, tokens] the sample holds
   */
  static Map<String, Object> of(
      String configHash,
      Map<String, Long> readBySource,
      Dataset<Row> drops,
      Dataset<Row> decontaminationOutcomes,
      Map<String, Long> rowsBySource,
      Map<String, SourcePlan> plan,
      Map<String, long[]> expected,
      List<ShardFilesTask.Written> written) {
    Map<String, Object> stats = new LinkedHashMap<>();
    stats.put("config_hash", configHash);
    stats.put(
        "sources",
        bySource(readBySource, drops, decontaminationOutcomes, rowsBySource, plan, expected));
    stats.put("totals", byFormat(written));
    return stats;
  }

  private static Map<String, Map<String, Object>> bySource(
      Map<String, Long> readBySource,
      Dataset<Row> drops,
      Dataset<Row> decontaminationOutcomes,
      Map<String, Long> rowsBySource,
      Map<String, SourcePlan> plan,
      Map<String, long[]> expected) {
    Map<String, Map<String, Object>> stats = new TreeMap<>();
    for (String source : MixtureSpec.SOURCES) {
      Map<String, Object> s = new LinkedHashMap<>();
      s.put("rows_read", readBySource.getOrDefault(source, 0L));
      s.put("dedup_dropped", 0L);
      s.put("decontamination_shortened", 0L);
      s.put("decontamination_dropped", 0L);
      s.put("rows_tokenized", rowsBySource.getOrDefault(source, 0L));
      SourcePlan p = plan.get(source);
      s.put("available_tokens", p.availableTokens());
      s.put("share", p.share());
      s.put("budget_tokens", p.budgetTokens());
      s.put("epochs", p.epochs());
      s.put("shortfall_tokens", p.shortfallTokens());
      long[] sampled = expected.getOrDefault(source, new long[2]);
      s.put("sampled_texts", sampled[0]);
      s.put("sampled_tokens", sampled[1]);
      stats.put(source, s);
    }
    for (Row row : drops.groupBy(sourceOf(col("row_id"))).count().collectAsList()) {
      stats.get(row.getString(0)).put("dedup_dropped", row.getLong(1));
    }
    if (decontaminationOutcomes != null) {
      for (Row row : decontaminationOutcomes.collectAsList()) {
        String outcome = row.getString(1);
        String key =
            outcome.equals(Decontamination.outcomeName(DecontaminatedText.Outcome.SHORTENED))
                ? "decontamination_shortened"
                : outcome.equals(Decontamination.outcomeName(DecontaminatedText.Outcome.UNCHANGED))
                    ? null
                    : "decontamination_dropped";
        if (key != null) {
          stats.get(row.getString(0)).merge(key, row.getLong(2), (a, b) -> (Long) a + (Long) b);
        }
      }
    }
    return stats;
  }

  private static Map<String, Object> byFormat(List<ShardFilesTask.Written> written) {
    Map<String, Object> totals = new LinkedHashMap<>();
    for (ShardFormat format :
        written.stream().map(ShardFilesTask.Written::format).distinct().toList()) {
      List<ShardFilesTask.Written> files =
          written.stream().filter(w -> w.format() == format).toList();
      Map<String, Long> t = new LinkedHashMap<>();
      t.put("shards", (long) files.size());
      t.put("sequences", files.stream().mapToLong(ShardFilesTask.Written::sequences).sum());
      t.put("documents", files.stream().mapToLong(ShardFilesTask.Written::documents).sum());
      t.put("tokens", files.stream().mapToLong(ShardFilesTask.Written::tokens).sum());
      t.put(
          "padding_tokens", files.stream().mapToLong(ShardFilesTask.Written::paddingTokens).sum());
      t.put(
          "bytes",
          files.stream()
              .flatMap(w -> w.files().stream())
              .mapToLong(ShardFilesTask.WrittenFile::bytes)
              .sum());
      totals.put(format.id(), t);
    }
    return totals;
  }

  /** The source of a {@code <source>/<row_id>} key (source names have no slash). */
  static Column sourceOf(Column rowKey) {
    return substring_index(rowKey, "/", 1);
  }
}
