package dev.infuse.jobs.llm;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.sql.Timestamp;
import java.time.Instant;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;

/** Rows of {@code llm_calls}, and their one-line JSON form in the journal. */
final class LlmCallRows {
  static final String SUCCEEDED = "succeeded";
  static final String FAILED = "failed";
  private static final ObjectMapper JSON = new ObjectMapper();

  private LlmCallRows() {}

  record Call(
      String callKey,
      String backend,
      String model,
      String request,
      String responseText,
      String finishReason,
      long tokensIn,
      long tokensOut,
      long latencyMs,
      int attempts,
      String status,
      String error,
      String runId,
      Instant calledAt) {

    Row toRow() {
      return RowFactory.create(
          callKey,
          backend,
          model,
          request,
          responseText,
          finishReason,
          tokensIn,
          tokensOut,
          latencyMs,
          attempts,
          status,
          error,
          runId,
          Timestamp.from(calledAt));
    }

    /**
     * One journal line; {@code called_at} as ISO-8601, which Spark's JSON reader parses as a
     * timestamp.
     */
    String toJsonLine() {
      ObjectNode node =
          JSON.createObjectNode()
              .put("call_key", callKey)
              .put("backend", backend)
              .put("model", model)
              .put("request", request)
              .put("response_text", responseText)
              .put("finish_reason", finishReason)
              .put("tokens_in", tokensIn)
              .put("tokens_out", tokensOut)
              .put("latency_ms", latencyMs)
              .put("attempts", attempts)
              .put("status", status)
              .put("error", error)
              .put("run_id", runId)
              .put("called_at", calledAt.toString());
      return node.toString();
    }

    /** The call of one journal line; null for a line that is not one (a kill cut it short). */
    static Call fromJsonLine(String line) {
      try {
        JsonNode node = JSON.readTree(line);
        if (node == null || !node.isObject()) {
          return null;
        }
        return new Call(
            node.get("call_key").asText(),
            text(node, "backend"),
            text(node, "model"),
            text(node, "request"),
            text(node, "response_text"),
            text(node, "finish_reason"),
            node.get("tokens_in").asLong(),
            node.get("tokens_out").asLong(),
            node.get("latency_ms").asLong(),
            node.get("attempts").asInt(),
            node.get("status").asText(),
            text(node, "error"),
            text(node, "run_id"),
            Instant.parse(node.get("called_at").asText()));
      } catch (JsonProcessingException | RuntimeException e) {
        return null;
      }
    }

    private static String text(JsonNode node, String field) {
      JsonNode value = node.get(field);
      return value == null || value.isNull() ? null : value.asText();
    }
  }
}
