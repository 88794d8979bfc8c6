package dev.infuse.jobs.demo;

import static org.apache.spark.sql.functions.col;

import dev.infuse.jobs.config.InfuseConfig;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.jobs.llm.LlmConfig;
import dev.infuse.jobs.train.TrainConfig;
import dev.infuse.udfs.embed.EmbedderSpec;
import dev.infuse.udfs.embed.TextEmbedder;
import dev.infuse.udfs.llm.ChatMessage;
import dev.infuse.udfs.llm.ChatRequest;
import dev.infuse.udfs.llm.ChatResponse;
import dev.infuse.udfs.llm.GenerationParams;
import dev.infuse.udfs.llm.LlmBackend;
import dev.infuse.udfs.llm.LlmClient;
import dev.infuse.udfs.llm.LlmClients;
import dev.infuse.udfs.llm.LlmSettings;
import dev.infuse.udfs.lm.CausalLm;
import dev.infuse.udfs.lm.LmModelSpec;
import dev.infuse.udfs.lm.LogLikelihoodScorer;
import dev.infuse.udfs.lm.MultipleChoiceScore;
import dev.infuse.udfs.model.ExecutorModels;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.spark.sql.Row;

/**
 * The demo's last step: puts the model {@code train} just wrote behind the {@code djl} backend and
 * asks it two synthetic questions, then scores one QuALITY question by log-likelihood and retrieves
 * that question's nearest chunks with the embedder. A two-layer model trained for a few hundred CPU
 * steps answers badly; this proves the path, not the quality.
 */
final class TrainedModelProbe {
  private TrainedModelProbe() {}

  static void run(Warehouse warehouse, InfuseConfig config, Path modelDir, PrintWriter out) {
    LlmSettings settings =
        new LlmSettings(
            LlmBackend.DJL,
            null,
            modelDir.toString(),
            null,
            4,
            config.section(LlmConfig.class).client().requestTimeoutSeconds(),
            config.section(LlmConfig.class).client().rowTimeoutSeconds(),
            1,
            config.section(LlmConfig.class).client().initialBackoffMillis(),
            config.section(LlmConfig.class).client().maxBackoffMillis(),
            config.section(TrainConfig.class).device());
    var client = LlmClients.forSettings(settings);
    List<Row> pairs =
        warehouse
            .read("synthetic_qa")
            .orderBy("qa_id")
            .select("question", "answer")
            .limit(2)
            .collectAsList();
    for (Row pair : pairs) {
      ChatRequest request =
          new ChatRequest(
              settings.model(),
              List.of(new ChatMessage("user", pair.getString(0))),
              new GenerationParams(32, 0, 1, 1, List.of(), 0L, false, null),
              null);
      ChatResponse response = answer(client, request, settings.rowTimeoutSeconds());
      out.printf(
          Locale.ROOT,
          "  Q: %s%n     model (djl, greedy): %s%n     reference: %s%n",
          clip(pair.getString(0)),
          clip(response.text().strip()),
          clip(pair.getString(1)));
    }
    Row question =
        warehouse
            .read("questions")
            .filter(col("options").isNotNull().and(col("benchmark").equalTo("quality")))
            .orderBy("question_id")
            .head();
    CausalLm model =
        ExecutorModels.get(
            new LmModelSpec(modelDir.toString(), config.section(TrainConfig.class).device()));
    List<String> options = question.getList(question.fieldIndex("options"));
    MultipleChoiceScore score =
        new LogLikelihoodScorer(model, 8)
            .multipleChoice(
                "Question: " + question.<String>getAs("question") + "\nAnswer:", options);
    int gold = question.<Integer>getAs("gold_index");
    out.printf(
        Locale.ROOT,
        "  %s by log-likelihood: acc picks %c, acc_norm picks %c, gold %c%n",
        question.<String>getAs("question_id"),
        (char) ('A' + score.acc()),
        (char) ('A' + score.accNorm()),
        (char) ('A' + gold));
    denseRetrieval(warehouse, config, question, out);
    out.flush();
  }

  /**
   * The model's answer, waited for at most one row's timeout: a probe that cannot get an answer
   * fails the demo with the reason instead of holding it forever.
   */
  private static ChatResponse answer(LlmClient client, ChatRequest request, int timeoutSeconds) {
    try {
      return client.complete(request).get(timeoutSeconds, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      throw new IllegalStateException(
          "the djl backend gave no answer within llm.row_timeout_seconds = "
              + timeoutSeconds
              + " s",
          e);
    } catch (ExecutionException e) {
      throw new IllegalStateException(
          "the djl backend failed to answer: " + e.getCause().getMessage(), e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while the djl backend answered", e);
    }
  }

  /**
   * The question's nearest chunks of its own article by cosine over chunk_embeddings: dense
   * retrieval.
   */
  private static void denseRetrieval(
      Warehouse warehouse, InfuseConfig config, Row question, PrintWriter out) {
    TextEmbedder embedder = ExecutorModels.get(config.section(EmbedderSpec.class));
    float[] query = embedder.embed(List.of(question.<String>getAs("question")))[0];
    List<Row> chunks =
        warehouse
            .read("chunk_embeddings")
            .filter(
                col("doc_id")
                    .equalTo(question.<String>getAs("doc_id"))
                    .and(col("model").equalTo(embedder.modelId())))
            .select("chunk_id", "vector")
            .collectAsList();
    List<Map.Entry<String, Double>> ranked = new ArrayList<>();
    for (Row chunk : chunks) {
      List<Float> vector = chunk.getList(1);
      double dot = 0;
      for (int i = 0; i < query.length; i++) {
        dot += query[i] * vector.get(i);
      }
      ranked.add(Map.entry(chunk.getString(0), dot));
    }
    ranked.sort(Map.Entry.<String, Double>comparingByValue().reversed());
    out.printf(
        Locale.ROOT,
        "  dense retrieval for it (%s, cosine) over its article's %d chunks: %s%n",
        embedder.modelId(),
        ranked.size(),
        ranked.stream()
            .limit(3)
            .map(e -> String.format(Locale.ROOT, "%s %.3f", e.getKey(), e.getValue()))
            .toList());
  }

  private static String clip(String text) {
    String line = text.replaceAll("\\s+", " ");
    return line.length() <= 100 ? line : line.substring(0, 97) + "...";
  }
}
