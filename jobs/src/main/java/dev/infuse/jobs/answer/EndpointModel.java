package dev.infuse.jobs.answer;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import dev.infuse.jobs.config.ConfigException;
import dev.infuse.jobs.shards.ShardBuildInfo;
import dev.infuse.udfs.llm.LlmSettings;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * A trained model served by an OpenAI-compatible endpoint (vLLM, SGLang, ...), for the trained
 * settings instead of a model directory: an entry of {@code evaluate.models}, or {@code
 * answer.endpoint}. Generation goes to its chat completions, log-likelihood to its completions with
 * echoed prompt log-probabilities ({@code CompletionsLoglikelihood}), both through the LLM layer
 * (cache, retries, budget, resume).
 *
 * @param name what reports and step titles call it; null for {@code model}
 * @param baseUrl the server, e.g. {@code http://gpu-box:8000/v1}
 * @param model the model name the server serves (vLLM's {@code --served-model-name})
 * @param apiKeyEnv the environment variable holding its API key; null for none
 * @param syntheticTokens the synthetic tokens it was trained on (info.json {@code
 *     synthetic_tokens}: as written to the shards); null when unknown or read from {@code shards}
 * @param tokenizer the served model's tokenizer.json (or a directory holding one), for
 *     log-likelihood: it counts the context's and continuation's tokens; any Hadoop path, relative
 *     to the working directory
 * @param shards the build-shards directory it was trained on (relative paths are under the
 *     warehouse, as model directories): its info.json gives the synthetic token counts and
 *     generator, as train_info.json does for a model directory
 * @param maxLength the most tokens the server takes per request ({@code --max-model-len}); longer
 *     log-likelihood prompts keep their last tokens, as the harness's {@code max_length}; null for
 *     no limit
 * @param tokenizedRequests send log-likelihood prompts as token ids (the harness's default) or,
 *     when false, as text the server tokenizes; null for true
 */
public record EndpointModel(
    String name,
    String baseUrl,
    String model,
    String apiKeyEnv,
    Long syntheticTokens,
    String tokenizer,
    String shards,
    Integer maxLength,
    Boolean tokenizedRequests)
    implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The YAML keys, as an entry of {@code evaluate.models} spells them. */
  public static final List<String> KEYS =
      Arrays.stream(EndpointModel.class.getRecordComponents())
          .map(
              c ->
                  ((PropertyNamingStrategies.NamingBase) PropertyNamingStrategies.SNAKE_CASE)
                      .translate(c.getName()))
          .toList();

  private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  /** What reports and step titles call it. */
  public String label() {
    return name != null && !name.isBlank() ? name : model;
  }

  /** Whether log-likelihood prompts go as token ids. */
  public boolean tokenized() {
    return tokenizedRequests == null || tokenizedRequests;
  }

  /**
   * Every value no request could be built from, as "key: got X, expected Y" with this record's
   * keys; empty when valid. Files are checked when a job reads them.
   */
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    if (name != null && name.isBlank()) {
      problems.add("name: got an empty name, expected a label such as smt-100m (or no name)");
    }
    if (baseUrl == null || baseUrl.isBlank()) {
      problems.add(
          "base_url: got nothing, expected the server's OpenAI-compatible URL, e.g."
              + " http://gpu-box:8000/v1");
    } else if (!httpUrl(baseUrl)) {
      problems.add(
          "base_url: got '"
              + baseUrl
              + "', expected an http or https URL, e.g. http://gpu-box:8000/v1");
    }
    if (model == null || model.isBlank()) {
      problems.add(
          "model: got nothing, expected the model name the server serves (vLLM's"
              + " --served-model-name)");
    }
    if (apiKeyEnv != null && !ENV_NAME.matcher(apiKeyEnv.strip()).matches()) {
      // Never echoed: a key pasted here instead of a variable name must not reach a log.
      problems.add(
          "api_key_env: got a value that is not an environment variable name, expected the NAME"
              + " of the variable holding the API key (e.g. VLLM_KEY), never the key");
    }
    if (syntheticTokens != null && syntheticTokens < 0) {
      problems.add("synthetic_tokens: got " + syntheticTokens + ", expected an integer >= 0");
    }
    if (syntheticTokens != null && shards != null) {
      problems.add(
          "synthetic_tokens: got "
              + syntheticTokens
              + " with shards "
              + shards
              + ", expected one of them: shards reads synthetic_tokens (and the unique and seen"
              + " counts) from the build's info.json");
    }
    if (shards != null && shards.isBlank()) {
      problems.add("shards: got an empty path, expected the build-shards directory it trained on");
    }
    if (tokenizer != null && tokenizer.isBlank()) {
      problems.add("tokenizer: got an empty path, expected the served model's tokenizer.json");
    }
    if (maxLength != null && maxLength < 3) {
      problems.add(
          "max_length: got "
              + maxLength
              + ", expected the server's maximum model length (>= 3), or no max_length");
    }
    return problems;
  }

  /** The LLM settings that reach this endpoint, with the {@code llm} section's limits. */
  public LlmSettings client(LlmSettings limits) {
    return limits.withEndpoint(baseUrl.strip(), model.strip(), apiKeyEnv);
  }

  /**
   * What it was trained on: {@code synthetic_tokens}, or the counts of the {@code shards} build's
   * info.json, exactly as {@code train} copies them into train_info.json; {@link TrainedOn#NONE}
   * with neither.
   *
   * @param option how messages name this entry's keys, e.g. {@code evaluate.models[1]} or {@code
   *     answer.endpoint}
   */
  public TrainedOn trainedOn(String warehouse, Configuration hadoop, String option) {
    if (shards == null) {
      return syntheticTokens == null
          ? TrainedOn.NONE
          : TrainedOn.ofSyntheticTokens(syntheticTokens);
    }
    Path build = shardsPath(warehouse);
    ShardBuildInfo info;
    try {
      FileSystem fs = build.getFileSystem(hadoop);
      if (!fs.exists(new Path(build, ShardBuildInfo.FILE))) {
        throw new ConfigException(
            List.of(
                option
                    + ".shards: got "
                    + shards
                    + " ("
                    + build
                    + "), which has no "
                    + ShardBuildInfo.FILE
                    + "; expected a build-shards output directory (relative paths are under the"
                    + " warehouse)"));
      }
      if (!fs.exists(new Path(build, "COMPLETED"))) {
        throw new ConfigException(
            List.of(
                option
                    + ".shards: "
                    + build
                    + " has an info.json but no COMPLETED marker: its build-shards run has not"
                    + " finished; expected a finished build"));
      }
      info = ShardBuildInfo.read(build.toString(), hadoop);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + build, e);
    }
    if (info == null || info.syntheticTokens() == null) {
      throw new ConfigException(
          List.of(
              option
                  + ".shards: "
                  + build
                  + "/"
                  + ShardBuildInfo.FILE
                  + " has no synthetic_tokens; expected an info.json written by build-shards"));
    }
    return TrainedOn.ofShardBuild(info);
  }

  /** The shards directory: as given when absolute or a URI, else under the warehouse. */
  Path shardsPath(String warehouse) {
    Path path = new Path(shards.strip());
    return path.isAbsolute() || path.toUri().getScheme() != null
        ? path
        : new Path(warehouse, shards.strip());
  }

  @Override
  public String toString() {
    return String.format(
        Locale.ROOT, "%s (%s at %s)", label(), model, baseUrl == null ? "?" : baseUrl.strip());
  }

  private static boolean httpUrl(String url) {
    try {
      URI uri = new URI(url.strip());
      return ("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))
          && uri.getHost() != null;
    } catch (URISyntaxException e) {
      return false;
    }
  }
}
