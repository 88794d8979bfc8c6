package dev.infuse.jobs.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The whole configuration, bound from YAML: the built-in defaults ({@code dev/infuse/jobs/defaults.yaml},
 * which documents every key), then each {@code --config} file, then each {@code --set key=value}, then
 * the job's own flags. Keys are snake_case; unknown keys are errors.
 *
 * @param warehouse where the Delta tables live: a directory or any Hadoop URI
 */
public record InfuseConfig(
    String warehouse, RunConfig run, SparkConfig spark, IngestConfig ingest, ChunkConfig chunk, DemoConfig demo) {

  /**
   * Settings every job shares.
   *
   * @param seed the run seed; all sampling derives from (seed, row key)
   * @param progressIntervalSeconds how often the driver prints progress; 0 turns it off
   */
  public record RunConfig(long seed, int progressIntervalSeconds) {}

  /**
   * @param master the Spark master for local runs; ignored when spark-submit or the platform sets one
   * @param conf extra Spark settings, applied when Infuse creates the session
   */
  public record SparkConfig(String master, Map<String, String> conf) {}

  /**
   * @param format the reader: quality, financebench, gsm8k, anli, medqa, longhealth, medec, aci-bench, agentclinic
   * @param input a file or directory, local or any Hadoop URI
   * @param maxBadFraction the job fails (after quarantining) when more than this fraction of items is bad
   */
  public record IngestConfig(String format, String input, double maxBadFraction) {}

  /**
   * @param maxTokens the chunk size in tokens (EntiGraph's RAG recipe: 1024)
   * @param overlapTokens tokens shared by consecutive chunks
   * @param tokenizer {@code default} (all-MiniLM-L6-v2, shipped in the jar) or the path or URI of a
   *     HuggingFace tokenizer.json
   * @param corpus chunk only this corpus; null for every document
   */
  public record ChunkConfig(int maxTokens, int overlapTokens, String tokenizer, String corpus) {}

  /**
   * @param input the demo's QuALITY file, relative to the Infuse home directory
   */
  public record DemoConfig(String input) {}

  /** Every semantic problem, as "key: got X, expected Y"; empty when the config is usable. */
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    if (warehouse == null || warehouse.isBlank()) {
      problems.add("warehouse: got nothing, expected a directory or URI");
    }
    if (run.progressIntervalSeconds() < 0) {
      problems.add("run.progress_interval_seconds: got " + run.progressIntervalSeconds() + ", expected >= 0");
    }
    if (spark.master() == null || spark.master().isBlank()) {
      problems.add("spark.master: got nothing, expected a Spark master such as local[*]");
    }
    double bad = ingest.maxBadFraction();
    if (!(bad >= 0 && bad <= 1)) {
      problems.add("ingest.max_bad_fraction: got " + bad + ", expected a fraction in 0..1");
    }
    if (chunk.maxTokens() < 16) {
      problems.add("chunk.max_tokens: got " + chunk.maxTokens() + ", expected an integer >= 16");
    }
    if (chunk.overlapTokens() < 0 || chunk.overlapTokens() * 2 >= Math.max(chunk.maxTokens(), 1)) {
      problems.add("chunk.overlap_tokens: got " + chunk.overlapTokens() + ", expected 0 <= overlap < max_tokens / 2 ("
          + chunk.maxTokens() + " / 2)");
    }
    if (chunk.tokenizer() == null || chunk.tokenizer().isBlank()) {
      problems.add("chunk.tokenizer: got nothing, expected 'default' or the path of a tokenizer.json");
    }
    return problems;
  }
}
