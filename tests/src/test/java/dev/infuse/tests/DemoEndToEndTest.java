package dev.infuse.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.jobs.io.Warehouse;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/**
 * {@code infuse demo} end to end on the sample shipped in the repository; then its data steps
 * again, on a copy of its warehouse: nothing changes.
 */
class DemoEndToEndTest {
  private final SparkSession spark = SparkTestSession.get();

  @Test
  void demoBuildsTheWarehouseAndARerunCommitsNothing() {
    // The shared demo warehouse: one demo run per test JVM, since the demo trains a model.
    String warehouse = DemoWarehouse.get();
    CliResult result = DemoWarehouse.firstRun();
    // On the embedded default nothing is wrong, so a user's console shows no WARN or ERROR at all:
    // each one would be noise they cannot act on (UserLogsTest shows real ones still get through).
    assertThat(DemoWarehouse.warnings()).as("WARN/ERROR lines of the demo").isEmpty();
    assertThat(result.out())
        .contains(
            "== 1/42 ingest",
            "== 7/42 chunk",
            "== 8/42 embed",
            "== 9/42 gen-qa",
            "== 10/42 gen-docs",
            "== 11/42 build-shards",
            "mix 20,000 tokens",
            "== 13/42 build-shards",
            "== 14/42 train",
            "== 16/42 train",
            "== 17/42 ask the largest model",
            "== 2/42 ingest: GSM8K sample",
            "== 18/42 discuss: gsm8k questions -> rollouts, 2 agents x 3 turns (llm.backend"
                + " extractive, verifier exact)",
            "== 19/42 reward",
            "== 20/42 score: the discussion's per-turn metrics",
            "turn 2: majority accuracy ",
            "== 3/42 ingest: medec sample",
            "blank rows skipped: 2",
            "== 6/42 ingest: medqa sample",
            "== 21/42 build-behavior-tasks",
            "38 task(s) built under infuse-behavior@1",
            "== 22/42 answer --mode behavior: behavior_tasks -> behavior_predictions (llm.backend"
                + " extractive)",
            "== 23/42 score: behaviour macro-F1",
            "types/macro_f1 ",
            "medec/medec_error_flag_accuracy ",
            "== 24/42 mine-hard",
            "== 25/42 sft-data",
            "model (djl, greedy):",
            "by log-likelihood: acc picks",
            "dense retrieval for it",
            "== 26/42 index: chunks -> Lucene BM25 shards + dense vectors, rag.recipe default",
            "== 27/42 retrieve: quality questions -> top-4 chunks (hybrid, auto scope), rag.recipe default",
            "62 question(s) searched their own document (oracle document)",
            "== 28/42 chunk: documents -> chunks (only new or changed documents), rag.recipe entigraph",
            "== 29/42 index",
            "== 30/42 retrieve: quality questions -> top-128 chunks (dense, corpus scope), rag.recipe"
                + " entigraph",
            "query template query/entigraph@v1",
            "no reranker (retrieve.rerank is null)",
            "== 31/42 answer: quality, rag, llm.backend extractive, rag.recipe default",
            "== 32/42 answer: quality, rag, llm.backend extractive, rag.recipe entigraph",
            "answer.reader few_shot_cot not used: embedding mode reads no chat prompt",
            // The model-free reader's runs, and each model's two, answer in one pass each.
            "answered in one Spark pass with 1 other run(s) that share embedding",
            "== 37/42 answer: quality, trained, model models/tiny (",
            "== 38/42 answer: quality, trained_rag, model models/tiny (",
            "answered in one Spark pass with 1 other run(s) that share loglikelihood",
            "== 39/42 score",
            "== 40/42 fit-scaling",
            "== 42/42 report",
            "report.html",
            "Evaluation (score run",
            " fit (extractive:extractive-v1, unique synthetic tokens (tokenizer default)): accuracy = ",
            "Look at it:",
            "bin/infuse sql --warehouse");

    Warehouse w = new Warehouse(spark, warehouse);
    assertThat(w.tables())
        .containsExactly(
            "behavior_predictions",
            "behavior_scores",
            "behavior_tasks",
            "behavior_tasks_hard",
            "chunk_embeddings",
            "chunks",
            "decontamination_hits",
            "discussion_scores",
            "documents",
            "llm_calls",
            "predictions",
            "quarantine",
            "questions",
            "retrievals",
            "rewards",
            "rollouts",
            "runs",
            "scaling_fits",
            "score_comparisons",
            "scores",
            "shard_dedup_drops",
            "shard_manifest",
            "synthetic_docs",
            "synthetic_qa",
            "train_metrics");
    assertThat(w.read("documents").filter("corpus = 'quality'").count()).isEqualTo(5);
    // The behaviour run's cases: 8 MEDEC notes, 4 AgentClinic cases, 2 ACI-BENCH encounters
    // (dialogue and note each), and 6 MedQA questions; none of them reaches the SMT steps.
    assertThat(w.read("documents").count()).isEqualTo(5 + 8 + 4 + 4);
    assertThat(w.read("questions").filter("benchmark = 'medqa'").count()).isEqualTo(6);
    assertThat(w.read("behavior_tasks").select("type").distinct().count()).isEqualTo(3);
    assertThat(w.read("behavior_predictions").count()).isEqualTo(w.read("behavior_tasks").count());
    assertThat(w.read("behavior_scores").filter("subset = 'types' AND metric = 'macro_f1'").count())
        .isEqualTo(1);
    assertThat(java.nio.file.Path.of(warehouse, "sft", "behavior", "train.jsonl")).isRegularFile();
    assertThat(w.read("questions").filter("benchmark = 'quality'").count()).isEqualTo(62);
    assertThat(w.read("questions").filter("benchmark = 'gsm8k'").count()).isEqualTo(8);
    // The discussion: 8 problems, 2 agents, 3 turns, each response rewarded once and scored per
    // turn (group metrics for turns 0-2).
    assertThat(w.read("rollouts").count()).isEqualTo(8 * 2 * 3);
    assertThat(w.read("rewards").count()).isEqualTo(8 * 2 * 3);
    assertThat(
            w.read("discussion_scores")
                .filter("agent_id = 'all' AND metric = 'majority_accuracy'")
                .select("turn")
                .distinct()
                .count())
        .isEqualTo(3);
    assertThat(w.read("chunks").filter("n_tokens > 1024 OR n_tokens < 1").count()).isZero();
    assertThat(w.read("chunks").select("doc_id").distinct().count()).isEqualTo(5);
    assertThat(w.read("runs").filter("status = 'succeeded'").count()).isEqualTo(41);
    // Three shard builds of one mixture at three token targets, each in three reconciled formats.
    assertThat(w.read("shard_manifest").select("output").distinct().count()).isEqualTo(3);
    assertThat(w.read("shard_manifest").select("format").distinct().count()).isEqualTo(3);
    assertThat(
            w.read("shard_manifest")
                .groupBy("output", "format")
                .agg(org.apache.spark.sql.functions.sum("tokens").as("tokens"))
                .groupBy("output")
                .agg(org.apache.spark.sql.functions.countDistinct("tokens").as("totals"))
                .filter("totals <> 1")
                .count())
        .as("every format of a build holds the same tokens")
        .isZero();
    for (String build : java.util.List.of("demo-20k", "demo-40k", "demo")) {
      assertThat(java.nio.file.Path.of(warehouse, "shards", build, "COMPLETED")).isRegularFile();
    }
    // Each model trains one pass over its build's Parquet sequences (batch 4).
    java.util.Map<String, Long> onePass = new java.util.HashMap<>();
    for (Row build :
        w.read("shard_manifest")
            .filter("format = 'parquet'")
            .groupBy("output")
            .sum("sequences")
            .collectAsList()) {
      onePass.put(build.getString(0).replaceFirst(".*/", ""), (build.getLong(1) + 3) / 4);
    }
    assertThat(w.read("train_metrics").count())
        .isEqualTo(onePass.values().stream().mapToLong(Long::longValue).sum());
    // The evaluation: rag, and each model closed book and with rag; scored, compared, fitted,
    // reported.
    assertThat(w.read("predictions").select("setting").distinct().count()).isEqualTo(3);
    assertThat(
            w.read("predictions")
                .filter("setting LIKE 'trained%'")
                .select("synthetic_tokens")
                .distinct()
                .count())
        .isEqualTo(3);
    assertThat(w.read("scores").filter("metric = 'accuracy' AND subset = 'all'").count())
        .isEqualTo(8);
    // Both RAG recipes side by side: each with its own chunks and retrievals, and its rag run;
    // trained_rag under the default recipe only (evaluate.rag_recipe_settings [rag]).
    assertThat(
            w
                .read("chunks")
                .groupBy("rag_recipe", "unit")
                .count()
                .orderBy("rag_recipe")
                .collectAsList()
                .stream()
                .map(r -> r.getString(0) + "/" + r.getString(1))
                .toList())
        .containsExactly("default/tokens", "entigraph/chars");
    assertThat(
            w.read("chunks").filter("rag_recipe = 'entigraph' AND context_prefix IS NULL").count())
        .isZero();
    assertThat(
            w.read("retrievals")
                .filter("rag_recipe = 'entigraph'")
                .join(
                    w.read("chunks").filter("rag_recipe = 'entigraph'").select("chunk_id"),
                    "chunk_id")
                .count())
        .isEqualTo(w.read("retrievals").filter("rag_recipe = 'entigraph'").count())
        .isPositive();
    assertThat(
            w.read("retrievals").filter("rag_recipe = 'entigraph' AND scope <> 'corpus'").count())
        .isZero();
    assertThat(
            w
                .read("predictions")
                .filter("setting LIKE '%rag'")
                .groupBy("setting", "rag_recipe")
                .count()
                .orderBy("setting", "rag_recipe")
                .collectAsList()
                .stream()
                .map(r -> r.getString(0) + "/" + r.getString(1) + "=" + r.getLong(2))
                .toList())
        .containsExactly("rag/default=62", "rag/entigraph=62", "trained_rag/default=186");
    assertThat(w.read("score_comparisons").filter("metric = 'accuracy' AND subset = 'all'").count())
        .isEqualTo(3);
    assertThat(
            w.read("scaling_fits")
                .select("setting")
                .as(org.apache.spark.sql.Encoders.STRING())
                .collectAsList())
        .containsExactlyInAnyOrder("trained", "trained_rag");
    assertThat(w.read("scaling_fits").filter("n_points = 3 AND baseline_setting = 'rag'").count())
        .isEqualTo(2);
    assertThat(w.read("chunk_embeddings").count()).isEqualTo(w.read("chunks").count());
    assertThat(java.nio.file.Path.of(warehouse, "models", "tiny", "model.safetensors"))
        .isRegularFile();
    assertThat(w.read("synthetic_qa").count()).isPositive();
    assertThat(w.read("synthetic_docs").select("kind").distinct().count()).isEqualTo(3);
    assertThat(
            w.read("synthetic_docs")
                .filter("kind = 'rephrase'")
                .select("variant")
                .distinct()
                .count())
        .isEqualTo(4);
    assertThat(w.read("llm_calls").filter("status <> 'succeeded'").count()).isZero();

    assertThat(w.read("runs").count()).isEqualTo(41);

    // The report shows both recipes side by side, with what each one did.
    String html;
    try (var reports = java.nio.file.Files.walk(java.nio.file.Path.of(warehouse, "reports"))) {
      java.nio.file.Path report =
          reports.filter(p -> p.endsWith("report.html")).findFirst().orElseThrow();
      html = java.nio.file.Files.readString(report);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    assertThat(html)
        .contains(
            "rag [default]",
            "rag [entigraph]",
            "id=\"rag-recipes-table\"",
            "oracle document where a question has one",
            "corpus: each question searches its benchmark&#39;s whole corpus",
            "none: no reranker was given, so the recipe ran without one",
            "1024 characters, split recursively",
            "accuracy_attempted",
            "unique synthetic tokens",
            "recall@k is not measured for quality",
            "id=\"discussions-table\"",
            "id=\"behavior-table\"",
            "panel mean Hard macro-F1 (types)");
  }

  /**
   * The demo's rerun property, on a copy of its warehouse (so the tests that read the demo's
   * warehouse see it as the demo left it): every step that writes data, run again with the demo's
   * keys, commits nothing, calls no model and trains no step. The evaluation steps are not rerun:
   * each answer run is a new run by design; nor are reward and score, which only derive rows; nor
   * is discuss, which calls no model on a rerun but still rewrites its rollouts with the new run id
   * (not yet a no-op).
   */
  @Test
  void rerunningTheDemosDataStepsCommitsNothing() {
    String warehouse = SparkTestSession.copyOf(DemoWarehouse.get(), "demo-rerun");
    Warehouse w = new Warehouse(spark, warehouse);
    List<String> tables =
        List.of(
            "documents",
            "questions",
            "chunks",
            "chunk_embeddings",
            "llm_calls",
            "synthetic_qa",
            "synthetic_docs",
            "shard_manifest",
            "shard_dedup_drops",
            "decontamination_hits",
            "train_metrics",
            "retrievals",
            "behavior_tasks");
    Map<String, Long> versions = new HashMap<>();
    tables.forEach(t -> versions.put(t, w.version(t)));
    long runs = w.read("runs").count();
    long steps =
        (w.read("shard_manifest")
                    .filter("format = 'parquet' AND output LIKE '%/shards/demo'")
                    .agg(org.apache.spark.sql.functions.sum("sequences"))
                    .head()
                    .getLong(0)
                + 3)
            / 4;
    String shards = Path.of(warehouse, "shards", "demo").toString();
    String sample =
        SparkTestSession.repoRoot().resolve("samples/quality/quality_dev_sample.jsonl").toString();
    String gsm8k =
        SparkTestSession.repoRoot().resolve("samples/gsm8k/gsm8k_train_sample.jsonl").toString();
    String medec =
        SparkTestSession.repoRoot().resolve("samples/clinical/medec_ms_sample.csv").toString();

    List<String[]> rerun =
        List.of(
            new String[] {"ingest", "--format", "quality", "--input", sample},
            // The demo's keys: its SMT steps see the QuALITY corpus alone.
            new String[] {"chunk", "--corpus", "quality"},
            new String[] {"embed"},
            new String[] {"gen-qa", "--set", "gen_qa.corpus=quality"},
            new String[] {"gen-docs", "--set", "gen_docs.corpus=quality"},
            // The demo's largest build: 80k tokens cut to the model's 64-token sequences.
            new String[] {
              "build-shards",
              "--output",
              "shards/demo",
              "--total-tokens",
              "80000",
              "--sequence-length",
              "64",
              "--set",
              "shards.corpus=quality",
              "--set",
              "shards.decontamination.benchmarks=[quality]"
            },
            new String[] {
              "train", "--shards", shards, "--model-dir", "models/tiny", "--steps", "" + steps
            },
            new String[] {"index"},
            new String[] {"retrieve", "--benchmark", "quality", "--k", "4"},
            new String[] {"ingest", "--format", "gsm8k", "--input", gsm8k},
            new String[] {"ingest", "--format", "medec", "--input", medec},
            new String[] {"build-behavior-tasks"});
    StringBuilder out = new StringBuilder();
    for (String[] step : rerun) {
      List<String> args = new java.util.ArrayList<>(List.of(step));
      args.addAll(List.of("--warehouse", warehouse));
      CliResult result = SparkTestSession.cli(args.toArray(String[]::new));
      assertThat(result.code()).as(result.toString()).isZero();
      out.append(result.out());
    }
    for (String table : tables) {
      assertThat(w.version(table))
          .as(table + ": a rerun commits nothing")
          .isEqualTo(versions.get(table));
    }
    assertThat(out)
        .contains("is up to date")
        .contains("resumed from step " + steps + ", finished at step " + steps)
        .contains("0 called");
    assertThat(out.toString()).doesNotContainPattern("[1-9][0-9]* called");
    assertThat(w.read("runs").count()).isEqualTo(runs + rerun.size());
  }
}
