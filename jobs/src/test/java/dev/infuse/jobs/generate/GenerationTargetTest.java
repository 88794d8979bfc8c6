package dev.infuse.jobs.generate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.jobs.QualitySample;
import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.jobs.io.Warehouse;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/**
 * The entigraph entity recipe end to end with the extractive backend, and the synthetic-token
 * target of gen-docs and gen-qa: a run stops once the target is reached, and a rerun with a larger
 * target calls only what it did not call before, keeping every row and cached call.
 */
class GenerationTargetTest {
  private static final SparkSession SPARK = SparkTestSession.get();

  @Test
  void entigraphWritesTheSummaryEveryEntityEveryPairAndSeededTriplesUpToATarget() {
    String warehouse = QualitySample.ingestedCopy("entigraph");
    String[] entigraph = {
      "gen-docs",
      "--warehouse",
      warehouse,
      "--kinds",
      "entity",
      "--entity-recipe",
      "entigraph",
      "--set",
      "gen_docs.max_docs=1",
      "--set",
      "gen_docs.entigraph_max_entities=6",
      "--set",
      "gen_docs.entigraph_triples=3",
      "--set",
      "llm.max_concurrency=2"
    };
    // 1 summary + 6 entities + 15 pairs + 3 triples = 25 documents planned; a small target stops
    // after a few of them.
    CliResult first = SparkTestSession.cli(concat(entigraph, "--target-tokens", "1500"));
    assertThat(first.code()).as(first.toString()).isZero();
    assertThat(first.out()).contains("target reached: ").contains("(target 1500)");
    Warehouse w = new Warehouse(SPARK, warehouse);
    Map<String, Long> counts = counts(w);
    assertThat(counts.get("target.tokens")).isGreaterThanOrEqualTo(1500L);
    assertThat(counts.get("llm.deferred_by_target")).isPositive();
    long tokens = uniqueTokens(w);
    assertThat(tokens).isEqualTo(counts.get("target.tokens")).isGreaterThanOrEqualTo(1500L);
    List<Row> before = w.read("synthetic_docs").select("sdoc_id", "llm_call_key").collectAsList();
    assertThat(before.size()).isBetween(2, 24);
    assertThat(w.read("synthetic_docs").filter("variant = 'summary'").count()).isEqualTo(1);
    Map<String, Object> calledAt = calledAt(w);

    // A larger target than all 25 can reach: only the rest are called, and the run says so.
    CliResult rest = SparkTestSession.cli(concat(entigraph, "--target-tokens", "100000000"));
    assertThat(rest.code()).as(rest.toString()).isZero();
    assertThat(rest.out()).contains("target not reached: ").contains("every planned request");
    Map<String, Long> again = counts(w);
    // The entity-list call and every document call of the first run come from the cache.
    assertThat(again.get("llm.called")).isEqualTo(25L - before.size());
    assertThat(again.get("llm.cached")).isEqualTo(1L + before.size());
    assertThat(calledAt(w)).containsAllEntriesOf(calledAt);
    assertThat(w.read("synthetic_docs").select("sdoc_id", "llm_call_key").collectAsList())
        .containsAll(before)
        .hasSize(25);
    Map<String, Long> variants = new HashMap<>();
    for (Row row : w.read("synthetic_docs").groupBy("variant").count().collectAsList()) {
      variants.put(row.getString(0), row.getLong(1));
    }
    assertThat(variants)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("summary", 1L, "single", 6L, "pair", 15L, "triple", 3L));
    assertThat(
            w.read("synthetic_docs")
                .filter("variant = 'pair'")
                .select("template_id")
                .distinct()
                .as(Encoders.STRING())
                .collectAsList())
        .containsExactly("entigraph/pair");
    assertThat(again.get("target.tokens")).isEqualTo(uniqueTokens(w)).isGreaterThan(tokens);
  }

  @Test
  void genQaStopsAtItsTargetAndARerunWithALargerTargetAddsOnlyTheDifference() {
    String warehouse = QualitySample.chunkedCopy(512, "qa-target");
    String[] qa = {
      "gen-qa",
      "--warehouse",
      warehouse,
      "--pairs",
      "2",
      "--set",
      "gen_qa.max_units=12",
      "--set",
      "llm.max_concurrency=2"
    };
    CliResult first = SparkTestSession.cli(concat(qa, "--target-tokens", "300"));
    assertThat(first.code()).as(first.toString()).isZero();
    assertThat(first.out()).contains("target reached: ").contains("(target 300)");
    Warehouse w = new Warehouse(SPARK, warehouse);
    Map<String, Long> counts = counts(w);
    long calledFirst = counts.get("llm.called");
    assertThat(calledFirst).isBetween(1L, 11L);
    assertThat(counts.get("llm.deferred_by_target")).isEqualTo(12L - calledFirst);
    assertThat(counts.get("target.tokens")).isGreaterThanOrEqualTo(300L);
    List<String> ids = w.read("synthetic_qa").select("qa_id").as(Encoders.STRING()).collectAsList();
    Map<String, Object> calledAt = calledAt(w);
    // Every document's first chunk comes before any document's second.
    long docsInUnits =
        w.read("chunks").orderBy("chunk_id").limit(12).select("doc_id").distinct().count();
    assertThat(w.read("synthetic_qa").select("doc_id").distinct().count())
        .isEqualTo(Math.min(calledFirst, docsInUnits));

    long larger = counts.get("target.tokens") + 300;
    CliResult second = SparkTestSession.cli(concat(qa, "--target-tokens", Long.toString(larger)));
    assertThat(second.code()).as(second.toString()).isZero();
    assertThat(second.out()).contains("target reached: ").contains(calledFirst + " cached");
    Map<String, Long> again = counts(w);
    assertThat(again.get("llm.cached")).isEqualTo(calledFirst);
    assertThat(again.get("llm.called")).isPositive();
    assertThat(again.get("target.tokens")).isGreaterThanOrEqualTo(larger);
    assertThat(calledAt(w))
        .containsAllEntriesOf(calledAt)
        .hasSize((int) (calledFirst + again.get("llm.called")));
    assertThat(w.read("synthetic_qa").select("qa_id").as(Encoders.STRING()).collectAsList())
        .containsAll(ids);
  }

  /** runs.counts of the latest run. */
  private static Map<String, Long> counts(Warehouse w) {
    Row run = w.read("runs").orderBy(org.apache.spark.sql.functions.desc("started_at")).head();
    scala.collection.Map<String, Long> counts = run.getAs("counts");
    return new HashMap<>(scala.collection.JavaConverters.mapAsJavaMap(counts));
  }

  private static long uniqueTokens(Warehouse w) {
    return w.read("synthetic_docs")
        .dropDuplicates("text")
        .agg(org.apache.spark.sql.functions.sum("n_tokens"))
        .head()
        .getLong(0);
  }

  /** call_key to called_at of every call: unchanged values mean nothing was called again. */
  private static Map<String, Object> calledAt(Warehouse w) {
    Map<String, Object> out = new HashMap<>();
    for (Row row : w.read("llm_calls").select("call_key", "called_at").collectAsList()) {
      out.put(row.getString(0), row.get(1));
    }
    return out;
  }

  private static String[] concat(String[] a, String... b) {
    String[] all = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    return all;
  }
}
