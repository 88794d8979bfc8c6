package dev.infuse.tests;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.cli.JobCatalog;
import dev.infuse.jobs.config.InfuseConfig;
import dev.infuse.jobs.llm.LlmCallRunner;
import dev.infuse.jobs.llm.LlmConfig;
import dev.infuse.jobs.run.JobRun;
import dev.infuse.udfs.bench.BenchResult;
import dev.infuse.udfs.bench.BenchResults;
import dev.infuse.udfs.bench.BenchSizes;
import dev.infuse.udfs.llm.ChatMessage;
import dev.infuse.udfs.llm.ChatRequest;
import dev.infuse.udfs.llm.FakeOpenAiServer;
import dev.infuse.udfs.llm.GenerationParams;
import dev.infuse.udfs.llm.RequestKeys;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Throughput of the LLM layer against a loopback OpenAI-compatible server with a fixed latency.
 * Prints ratios measured side by side in one run and records the three that have goals (calling
 * stage and job end to end against the concurrency / latency bound, the job against a naive
 * one-call-per-row UDF); asserts nothing about time. Run it with {@code bin/infuse bench --only
 * LlmThroughputBenchmarkTest}.
 */
@Tag("benchmark")
class LlmThroughputBenchmarkTest {
  private static final int CONCURRENCY = 32;
  private static final long LATENCY_MS = 100;
  private static final int ROWS = BenchSizes.size("bench.rows", 8000, 32_000);
  private static final int NAIVE_ROWS = Integer.getInteger("bench.naiveRows", 400);
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void printRatios() throws Exception {
    SparkSession spark = SparkTestSession.get();
    try (FakeOpenAiServer server = new FakeOpenAiServer()) {
      server.setLatencyMillis(LATENCY_MS);
      InfuseConfig config =
          JobCatalog.configLoader()
              .setString("warehouse", SparkTestSession.tempDir("bench").toString())
              .set("llm.backend=openai")
              .setString("llm.base_url", server.baseUrl())
              .set("llm.model=bench-1")
              .set("llm.max_concurrency=" + CONCURRENCY)
              .set("run.progress_interval_seconds=0")
              .set("llm.rows_per_task=" + Integer.getInteger("bench.rowsPerTask", 256))
              .load();
      PrintWriter out = new PrintWriter(System.out, true);
      // Warm up the JVM and Spark (code generation, the Delta table) on other keys, so both sides
      // are measured warm.
      new LlmCallRunner(new JobRun("warmup", spark, config, out, out))
          .call(requests(spark, config, 500, "warmup"));
      server.resetCounters();
      Dataset<Row> requests = requests(spark, config, ROWS, "job");

      // The job path: cache lookup, executor tasks with the shared bounded client, journal, Delta
      // merge.
      long start = System.nanoTime();
      LlmCallRunner.Outcome outcome =
          new LlmCallRunner(new JobRun("bench", spark, config, out, out)).call(requests);
      double jobSeconds = (System.nanoTime() - start) / 1e9;
      // The same call again: every key is cached, so this is the job's fixed cost without any
      // request.
      start = System.nanoTime();
      new LlmCallRunner(new JobRun("bench", spark, config, out, out)).call(requests);
      double fixedSeconds = (System.nanoTime() - start) / 1e9;

      // The naive way: a UDF that makes one blocking call per row.
      Dataset<Row> naive = requests(spark, config, NAIVE_ROWS, "naive");
      String url = server.baseUrl() + "/chat/completions";
      start = System.nanoTime();
      long naiveDone =
          naive
              .select("chat_request")
              .as(Encoders.STRING())
              .map(
                  (org.apache.spark.api.java.function.MapFunction<String, Integer>)
                      request -> blockingCall(url, request),
                  Encoders.INT())
              .filter(
                  (org.apache.spark.api.java.function.FilterFunction<Integer>) code -> code == 200)
              .count();
      double naiveSeconds = (System.nanoTime() - start) / 1e9;

      double bound = CONCURRENCY * 1000.0 / LATENCY_MS;
      double jobRate = outcome.called() / jobSeconds;
      double stageRate = outcome.called() / Math.max(1e-3, outcome.callSeconds());
      double naiveRate = naiveDone / naiveSeconds;
      out.printf(
          Locale.ROOT,
          "%nLLM throughput, loopback server, latency %d ms, concurrency %d, Spark %s (%d cores)%n",
          LATENCY_MS,
          CONCURRENCY,
          spark.sparkContext().master(),
          Runtime.getRuntime().availableProcessors());
      out.printf(Locale.ROOT, "  bound C/latency                      %8.1f req/s%n", bound);
      out.printf(
          Locale.ROOT,
          "  job, end to end (%d rows, %.1f s)   %8.1f req/s  = %.2f of the bound%n",
          outcome.called(),
          jobSeconds,
          jobRate,
          jobRate / bound);
      out.printf(
          Locale.ROOT,
          "  job, calling stage alone (%.1f s)    %8.1f req/s  = %.2f of the bound%n",
          outcome.callSeconds(),
          stageRate,
          stageRate / bound);
      out.printf(
          Locale.ROOT,
          "  job, all cached rerun                %8.1f s (cache lookup only, no request)%n",
          fixedSeconds);
      out.printf(
          Locale.ROOT,
          "  naive blocking UDF (%d rows, %.1f s)  %8.1f req/s%n",
          naiveDone,
          naiveSeconds,
          naiveRate);
      out.printf(
          Locale.ROOT, "  job end to end / naive UDF           %8.1fx%n", jobRate / naiveRate);
      out.printf(
          Locale.ROOT, "  calling stage / naive UDF            %8.1fx%n", stageRate / naiveRate);
      out.printf(
          Locale.ROOT,
          "  requests the server saw: %d (%d + %d naive; the cached rerun sent none); most in flight at once: %d%n",
          server.totalRequests(),
          outcome.called(),
          naiveDone,
          server.maxInFlight());
      Row latency =
          new dev.infuse.jobs.io.Warehouse(spark, config.warehouse())
              .read("llm_calls")
              .selectExpr("avg(latency_ms)", "max(latency_ms)", "max(attempts)")
              .head();
      out.printf(
          Locale.ROOT,
          "  per call: mean latency %.0f ms, max %d ms, max attempts %d%n",
          latency.getDouble(0),
          latency.getLong(1),
          latency.getInt(2));
      String setup =
          String.format(
              Locale.ROOT,
              "loopback server, latency %d ms, concurrency %d, %d rows (naive %d), %d cores",
              LATENCY_MS,
              CONCURRENCY,
              outcome.called(),
              naiveDone,
              Runtime.getRuntime().availableProcessors());
      String boundText = String.format(Locale.ROOT, "bound C/latency %.0f req/s", bound);
      BenchResults.record(
          new BenchResult(
              "LLM calls, calling stage",
              String.format(Locale.ROOT, "%.1f req/s", stageRate),
              boundText,
              stageRate / bound,
              "ratio",
              true,
              0.90,
              setup));
      BenchResults.record(
          new BenchResult(
              "LLM calls, job end to end",
              String.format(Locale.ROOT, "%.1f req/s", jobRate),
              boundText,
              jobRate / bound,
              "ratio",
              true,
              0.90,
              setup));
      BenchResults.record(
          new BenchResult(
              "LLM job vs naive one-call-per-row UDF",
              String.format(Locale.ROOT, "%.1f req/s", jobRate),
              String.format(Locale.ROOT, "naive UDF %.1f req/s", naiveRate),
              jobRate / naiveRate,
              "x",
              true,
              10,
              setup));
    }
  }

  private static Dataset<Row> requests(
      SparkSession spark, InfuseConfig config, int rows, String tag) throws Exception {
    List<Row> list = new ArrayList<>();
    for (int i = 0; i < rows; i++) {
      ChatRequest request =
          new ChatRequest(
              config.section(LlmConfig.class).client().model(),
              List.of(
                  new ChatMessage(
                      "user", "Benchmark " + tag + " request " + i + ": say something.")),
              new GenerationParams(16, 0.0, 1.0, 1, List.of(), (long) i, false, null),
              Map.of());
      list.add(
          RowFactory.create(
              RequestKeys.key("openai", request),
              JSON.writeValueAsString(request),
              RequestKeys.canonicalJson("openai", request)));
    }
    StructType schema =
        new StructType()
            .add("call_key", DataTypes.StringType)
            .add("chat_request", DataTypes.StringType)
            .add("canonical_request", DataTypes.StringType);
    return spark.createDataFrame(
        new JavaSparkContext(spark.sparkContext()).parallelize(list, 2), schema);
  }

  private static final HttpClient NAIVE_CLIENT =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  private static int blockingCall(String url, String chatRequestJson) throws Exception {
    var request = JSON.readTree(chatRequestJson);
    String body =
        JSON.createObjectNode()
            .put("model", request.get("model").asText())
            .set("messages", request.get("messages"))
            .toString();
    HttpResponse<String> response =
        NAIVE_CLIENT.send(
            HttpRequest.newBuilder(URI.create(url))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    return response.statusCode();
  }
}
