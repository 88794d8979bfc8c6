package dev.infuse.tests;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.udfs.bench.BenchResult;
import dev.infuse.udfs.bench.BenchResults;
import dev.infuse.udfs.llm.FakeOpenAiServer;
import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * How the wall time of ingest, chunk, gen-qa (loopback server, no latency), retrieve (BM25) and
 * answer (closed book, the model-free default) grows from 1x to 8x of their input: the QuALITY
 * sample's articles copied under new ids, with their questions. Each size runs on a fresh warehouse
 * in this session. The figure is the 8x wall time against the straight line fitted through the 1x,
 * 2x and 4x times, extended to 8x: the line's intercept takes the fixed cost; 1 is linear.
 * build-shards' series is in {@link ShardBuildThroughputBenchmarkTest}. Prints and records; never
 * gates. Run it with:
 *
 * <pre>
 * mvn -o -B -pl tests -am verify -Dinfuse.excludedGroups= -Dgroups=benchmark -Dtest=CostGrowthBenchmarkTest -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 *
 * <p>{@code -Dbench.growthCopies} (default 16) sets the 1x size in copies of the 5-article sample.
 */
@Tag("benchmark")
class CostGrowthBenchmarkTest {
  private static final int COPIES = Integer.getInteger("bench.growthCopies", 16);
  private static final int[] FACTORS = {1, 2, 4, 8};
  private static final double GOAL = 1.15;
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void wallTimeGrowsLinearlyWithTheInput() throws Exception {
    SparkTestSession.get();
    Map<String, double[]> seconds = new LinkedHashMap<>();
    Map<String, long[]> sizes = new LinkedHashMap<>();
    try (FakeOpenAiServer server = new FakeOpenAiServer()) {
      server.setResponder(
          request ->
              "[{\"question\": \"What does this passage say?\", \"answer\": \"It tells a story.\"}]");
      // A warm-up pass at 1x, so the first timed size does not pay for class loading and JIT.
      chain(server, 1, null, null);
      for (int f = 0; f < FACTORS.length; f++) {
        chain(server, FACTORS[f], seconds, sizes);
      }
    }
    System.out.printf(
        Locale.ROOT,
        "%ncost growth, 1x = %d copies of the QuALITY sample (%d cores): wall seconds at 1x 2x 4x"
            + " 8x, and each against k times 1x%n",
        COPIES,
        Runtime.getRuntime().availableProcessors());
    for (Map.Entry<String, double[]> entry : seconds.entrySet()) {
      double[] s = entry.getValue();
      StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "  %-10s", entry.getKey()));
      for (int f = 0; f < FACTORS.length; f++) {
        line.append(
            String.format(Locale.ROOT, " %6.1f s (%.2f)", s[f], s[f] / (FACTORS[f] * s[0])));
      }
      System.out.println(line);
      // k x 1x flatters a job with a large fixed cost (8x of it costs the same as 1x of it), and a
      // slope between two sizes is noise when a job's work is small. The 8x time against the
      // straight line fitted through 1x, 2x and 4x is neither: the line's intercept takes the fixed
      // cost, and 1 is linear.
      double trend = linearAt(8, new double[] {1, 2, 4}, new double[] {s[0], s[1], s[2]});
      double growth = s[3] / trend;
      BenchResults.record(
          new BenchResult(
              "cost growth 1x to 8x, " + entry.getKey(),
              String.format(Locale.ROOT, "8x: %.1f s", s[3]),
              String.format(Locale.ROOT, "linear trend of 1x-4x at 8x: %.1f s", trend),
              growth,
              "x linear",
              false,
              GOAL,
              String.format(
                  Locale.ROOT,
                  "1x = %d %s; wall %.1f / %.1f / %.1f / %.1f s at 1x/2x/4x/8x; 8x = %.2f of 8"
                      + " times 1x",
                  sizes.get(entry.getKey())[0],
                  unitOf(entry.getKey()),
                  s[0],
                  s[1],
                  s[2],
                  s[3],
                  s[3] / (8 * s[0]))));
    }
  }

  /** The least-squares line through {@code (x, y)}, evaluated at {@code at}. */
  static double linearAt(double at, double[] x, double[] y) {
    double meanX = 0;
    double meanY = 0;
    for (int i = 0; i < x.length; i++) {
      meanX += x[i] / x.length;
      meanY += y[i] / y.length;
    }
    double sxy = 0;
    double sxx = 0;
    for (int i = 0; i < x.length; i++) {
      sxy += (x[i] - meanX) * (y[i] - meanY);
      sxx += (x[i] - meanX) * (x[i] - meanX);
    }
    double slope = sxy / sxx;
    return meanY + slope * (at - meanX);
  }

  private static String unitOf(String job) {
    return switch (job) {
      case "ingest" -> "articles";
      case "chunk", "gen-qa" -> "chunks";
      default -> "questions";
    };
  }

  /** Runs the chain at {@code factor} x on a fresh warehouse, timing each job when asked. */
  private static void chain(
      FakeOpenAiServer server, int factor, Map<String, double[]> seconds, Map<String, long[]> sizes)
      throws Exception {
    int index = 0;
    for (int f = 0; f < FACTORS.length; f++) {
      index = FACTORS[f] == factor ? f : index;
    }
    String warehouse = SparkTestSession.tempDir("growth").toString();
    Path input = corpus(COPIES * factor);
    List<String[]> steps =
        List.of(
            new String[] {"ingest", "--format", "quality", "--input", input.toString()},
            new String[] {"chunk", "--max-tokens", "256"},
            new String[] {
              "gen-qa",
              "--set",
              "llm.backend=openai",
              "--set",
              "llm.base_url=" + server.baseUrl(),
              "--set",
              "llm.model=fake-1",
              "--set",
              "llm.max_concurrency=32",
              "--set",
              "gen_qa.pairs_per_unit=1"
            },
            new String[] {"index", "--no-dense"},
            new String[] {"retrieve", "--benchmark", "quality", "--retriever", "bm25", "--k", "4"},
            new String[] {"answer", "--benchmark", "quality", "--setting", "closed_book"});
    for (String[] step : steps) {
      List<String> args = new ArrayList<>(List.of(step));
      args.addAll(List.of("--warehouse", warehouse, "--set", "run.progress_interval_seconds=0"));
      long started = System.nanoTime();
      CliResult result = SparkTestSession.cli(args.toArray(String[]::new));
      double elapsed = (System.nanoTime() - started) / 1e9;
      if (result.code() != 0) {
        throw new IllegalStateException(step[0] + " failed at " + factor + "x: " + result);
      }
      if (seconds != null && !step[0].equals("index")) {
        seconds.computeIfAbsent(step[0], k -> new double[FACTORS.length])[index] = elapsed;
        if (factor == 1) {
          sizes.put(step[0], new long[] {inputSize(warehouse, step[0])});
        }
      }
    }
  }

  private static long inputSize(String warehouse, String job) {
    String table =
        switch (job) {
          case "ingest" -> "documents";
          case "chunk", "gen-qa" -> "chunks";
          default -> "questions";
        };
    return new dev.infuse.jobs.io.Warehouse(SparkTestSession.get(), warehouse).read(table).count();
  }

  /** {@code copies} x the sample's articles, each copy under its own article and question ids. */
  private static Path corpus(int copies) throws Exception {
    Path sample = SparkTestSession.repoRoot().resolve("samples/quality/quality_dev_sample.jsonl");
    List<String> lines = Files.readAllLines(sample, StandardCharsets.UTF_8);
    Path out = SparkTestSession.tempDir("growth-input").resolve("quality_dev.jsonl");
    try (BufferedWriter writer = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
      for (int copy = 0; copy < copies; copy++) {
        for (String line : lines) {
          if (line.isBlank()) {
            continue;
          }
          ObjectNode article = (ObjectNode) JSON.readTree(line);
          String suffix = "-c" + copy;
          article.put("article_id", article.get("article_id").asText() + suffix);
          article.put("set_unique_id", article.get("set_unique_id").asText() + suffix);
          // Copies must differ in every chunk and question, or the LLM cache and the model-free
          // reader would do the work of one copy for all of them.
          article.put("article", marked(article.get("article").asText(), copy));
          for (com.fasterxml.jackson.databind.JsonNode question : article.withArray("questions")) {
            ((ObjectNode) question)
                .put("question", question.get("question").asText() + " (copy " + copy + ")");
          }
          writer.write(JSON.writeValueAsString(article));
          writer.newLine();
        }
      }
    }
    return out;
  }

  /** {@code text} with a copy marker after every 60th space, so that every chunk holds one. */
  private static String marked(String text, int copy) {
    StringBuilder out = new StringBuilder(text.length() + text.length() / 40);
    int spaces = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      out.append(c);
      if (c == ' ' && ++spaces % 60 == 0) {
        out.append("c").append(copy).append(' ');
      }
    }
    return out.toString();
  }
}
