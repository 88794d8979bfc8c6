package dev.infuse.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.jobs.SparkTestSession.CliResult;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The QuALITY sample (samples/quality, the same bytes as ../shared/benchmarks/quality) ingested,
 * and chunked at a token budget, once per test JVM by the real CLI: many test classes start from
 * exactly this warehouse, and ingest + chunk cost tens of seconds each time on a small CI machine.
 * Every caller gets its own copy, so what one test writes no other test sees.
 */
public final class QualitySample {
  private static String ingested;
  private static final Map<Integer, String> CHUNKED = new HashMap<>();

  private QualitySample() {}

  public static Path file() {
    return SparkTestSession.repoRoot().resolve("samples/quality/quality_dev_sample.jsonl");
  }

  /** A fresh warehouse holding the ingested sample: documents, questions and the ingest run. */
  public static synchronized String ingestedCopy(String prefix) {
    if (ingested == null) {
      String warehouse = SparkTestSession.tempDir("quality-ingested").toString();
      CliResult ingest =
          SparkTestSession.cli(
              "ingest",
              "--format",
              "quality",
              "--input",
              file().toString(),
              "--warehouse",
              warehouse);
      assertThat(ingest.code()).as(ingest.toString()).isZero();
      ingested = warehouse;
    }
    return SparkTestSession.copyOf(ingested, prefix);
  }

  /**
   * A fresh warehouse holding the ingested sample chunked by {@code chunk --max-tokens maxTokens}.
   */
  public static synchronized String chunkedCopy(int maxTokens, String prefix) {
    String template = CHUNKED.get(maxTokens);
    if (template == null) {
      template = ingestedCopy("quality-chunked-" + maxTokens);
      CliResult chunk =
          SparkTestSession.cli(
              "chunk", "--warehouse", template, "--max-tokens", String.valueOf(maxTokens));
      assertThat(chunk.code()).as(chunk.toString()).isZero();
      CHUNKED.put(maxTokens, template);
    }
    return SparkTestSession.copyOf(template, prefix);
  }
}
