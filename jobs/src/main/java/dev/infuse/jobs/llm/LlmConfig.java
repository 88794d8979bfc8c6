package dev.infuse.jobs.llm;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.infuse.jobs.config.ConfigSection;
import dev.infuse.udfs.llm.LlmSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The {@code llm} section: where every LLM call goes, and what it may cost. See defaults.yaml for
 * each key.
 *
 * @param client how to reach the backend ({@code backend}, {@code base_url}, {@code model}, {@code
 *     api_key_env}, concurrency, timeouts, retries, {@code device}): its keys sit directly under
 *     {@code llm}, and executors build their client from it
 * @param maxTokens completion budget of a generation call, unless a job says otherwise
 * @param maxTotalTokens stop cleanly once a run has used this many tokens (in + out); 0 for no
 *     limit
 * @param prices per model, in US dollars per million tokens, for the cost estimate in {@code runs}
 * @param maxFailureFraction fail the run when more than this fraction of its calls failed for good
 * @param rowsPerTask requests per Spark task
 */
public record LlmConfig(
    @JsonUnwrapped LlmSettings client,
    int maxTokens,
    double temperature,
    double topP,
    long maxTotalTokens,
    Map<String, Price> prices,
    double maxFailureFraction,
    int rowsPerTask)
    implements ConfigSection {

  /** US dollars per million tokens. */
  public record Price(double inputPerMillion, double outputPerMillion) {}

  /** The same limits with another client: the trained settings answer through djl on a model. */
  public LlmConfig withClient(LlmSettings newClient) {
    return new LlmConfig(
        newClient,
        maxTokens,
        temperature,
        topP,
        maxTotalTokens,
        prices,
        maxFailureFraction,
        rowsPerTask);
  }

  @Override
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    if (client.backend() == null) {
      problems.add("backend: got nothing, expected extractive, openai or djl");
    }
    problems.addAll(client.problems());
    if (client.requestTimeoutSeconds() >= 1
        && client.rowTimeoutSeconds() < client.requestTimeoutSeconds()) {
      // A row's time covers all its attempts: configured below one attempt's, no attempt could
      // finish.
      problems.add(
          "row_timeout_seconds: got "
              + client.rowTimeoutSeconds()
              + " with request_timeout_seconds "
              + client.requestTimeoutSeconds()
              + ", expected 1 <= request_timeout_seconds <= row_timeout_seconds");
    }
    if (maxTotalTokens < 0) {
      problems.add("max_total_tokens: got " + maxTotalTokens + ", expected >= 0 (0 for no limit)");
    }
    if (!(maxFailureFraction >= 0 && maxFailureFraction <= 1)) {
      problems.add(
          "max_failure_fraction: got " + maxFailureFraction + ", expected a fraction in 0..1");
    }
    if (rowsPerTask < 1) {
      problems.add("rows_per_task: got " + rowsPerTask + ", expected an integer >= 1");
    }
    return problems;
  }
}
