package dev.infuse.tests;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OnnxValue;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.embed.EmbedJob;
import dev.infuse.udfs.bench.BenchResult;
import dev.infuse.udfs.bench.BenchResults;
import dev.infuse.udfs.bench.BenchSizes;
import dev.infuse.udfs.embed.DjlSentenceEmbedder;
import dev.infuse.udfs.embed.EmbedderSpec;
import dev.infuse.udfs.embed.EmbeddingModelFiles;
import dev.infuse.udfs.embed.EmbeddingTokenizer;
import dev.infuse.udfs.embed.LengthSortedBatches;
import dev.infuse.udfs.embed.Pooling;
import dev.infuse.udfs.embed.TokenBatch;
import dev.infuse.udfs.embed.TokenIds;
import dev.infuse.udfs.model.ExecutorModels;
import java.nio.LongBuffer;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Sentences per second through the Spark {@code embed} path (EmbedJob.transform: mapPartitions, the
 * per-JVM DJL embedder, Row conversion) against a raw ONNX Runtime {@code OrtSession} driven by
 * plain Java, side by side in one JVM: same model file, tokenization, length-sorted windows and
 * batch size, same pooling, ONNX Runtime threads per call, and as many Java threads as Spark
 * partitions. Rounds alternate between the two so that a neighbour's load hits both. Records the
 * ratio of medians (goal ≥ 0.85); asserts nothing about time. Run {@code bin/infuse bench --only
 * EmbeddingThroughputBenchmarkTest}, or:
 *
 * <pre>mvn -o -B -pl udfs,jobs,tests package -Dinfuse.excludedGroups= -Dgroups=benchmark \
 *   -Dtest=EmbeddingThroughputBenchmarkTest -Dsurefire.failIfNoSpecifiedTests=false
 *   [-Dbench.texts=1000 -Dbench.batch=32 -Dbench.threads=1 -Dbench.parallelism=1 -Dbench.rounds=3 (5 with --scale)]
 * </pre>
 *
 * <p>The figures land in {@code
 * tests/target/surefire-reports/*EmbeddingThroughputBenchmarkTest-output.txt}.
 */
@Tag("benchmark")
class EmbeddingThroughputBenchmarkTest {
  private static final int TEXTS = Integer.getInteger("bench.texts", 1000);
  private static final int BATCH = Integer.getInteger("bench.batch", 32);
  private static final int THREADS = Integer.getInteger("bench.threads", 1);
  private static final int PARALLELISM = Integer.getInteger("bench.parallelism", 1);
  private static final int ROUNDS = BenchSizes.size("bench.rounds", 3, 5);

  /** The window EmbedRows sorts by length: the raw side uses the same. */
  private static final int WINDOW = BATCH * 16;

  @Test
  void printEmbeddingsPerSecond() throws Exception {
    SparkSession spark = SparkTestSession.get();
    List<String> texts = sentences(TEXTS);
    EmbedderSpec spec = new EmbedderSpec("default", "cpu", BATCH, THREADS, "warn");
    EmbeddingModelFiles files = EmbeddingModelFiles.resolve("default");
    Dataset<Row> chunks = chunks(spark, texts, PARALLELISM).cache();
    chunks.count();

    // DJL's OrtEngine creates the JVM's one OrtEnvironment, with its own options, and fails if one
    // exists:
    // so it goes first, and the raw side then gets the same environment (never closed: DJL's too).
    ExecutorModels.get(spec);
    OrtEnvironment env = OrtEnvironment.getEnvironment();
    try (OrtSession.SessionOptions options = new OrtSession.SessionOptions()) {
      options.setInterOpNumThreads(1);
      options.setIntraOpNumThreads(THREADS);
      try (OrtSession session = env.createSession(files.modelFile().toString(), options);
          EmbeddingTokenizer tokenizer =
              new EmbeddingTokenizer(files.tokenizerJson(), DjlSentenceEmbedder.MAX_TOKENS)) {
        RawOrt raw = new RawOrt(env, session, tokenizer);
        // One full untimed round of each (model load, JIT of Spark's and DJL's paths, ORT's
        // first-run
        // allocations): with a short warm-up the Spark rounds still sped up round after round.
        sparkPath(spark, chunks, spec);
        raw.embedAll(texts, PARALLELISM);

        List<Double> sparkRates = new ArrayList<>();
        List<Double> rawRates = new ArrayList<>();
        for (int round = 0; round < ROUNDS; round++) {
          long start = System.nanoTime();
          long done = sparkPath(spark, chunks, spec);
          sparkRates.add(done / ((System.nanoTime() - start) / 1e9));
          start = System.nanoTime();
          float[][] vectors = raw.embedAll(texts, PARALLELISM);
          rawRates.add(vectors.length / ((System.nanoTime() - start) / 1e9));
        }
        double maxDiff =
            maxDifference(
                ExecutorModels.get(spec).embed(texts.subList(0, 100)),
                raw.embedAll(texts.subList(0, 100), 1));

        double sparkBest = sparkRates.stream().mapToDouble(Double::doubleValue).max().orElse(0);
        double rawBest = rawRates.stream().mapToDouble(Double::doubleValue).max().orElse(0);
        double sparkMedian = median(sparkRates);
        double rawMedian = median(rawRates);
        int meanTokens =
            (int) tokenizer.tokenize(texts).stream().mapToInt(TokenIds::length).average().orElse(0);
        System.out.printf(
            Locale.ROOT,
            "%nEmbedding throughput, all-MiniLM-L6-v2 on CPU, %d sentences (mean %d tokens),"
                + " batch %d, ORT threads %d, %d partition(s) = %d raw Java thread(s), %d rounds, %d cores, Spark %s%n",
            TEXTS,
            meanTokens,
            BATCH,
            THREADS,
            PARALLELISM,
            PARALLELISM,
            ROUNDS,
            Runtime.getRuntime().availableProcessors(),
            spark.sparkContext().master());
        System.out.printf(
            Locale.ROOT,
            "  Spark embed path (EmbedJob.transform)  best %8.1f/s  median %8.1f/s  rounds %s%n",
            sparkBest,
            sparkMedian,
            format(sparkRates));
        System.out.printf(
            Locale.ROOT,
            "  raw OrtSession                         best %8.1f/s  median %8.1f/s  rounds %s%n",
            rawBest,
            rawMedian,
            format(rawRates));
        System.out.printf(
            Locale.ROOT,
            "  ratio Spark / raw                      best %8.3f    median %8.3f    (goal >= 0.85)%n",
            sparkBest / rawBest,
            sparkMedian / rawMedian);
        System.out.printf(
            Locale.ROOT, "  largest difference between the two paths' vectors: %.2e%n", maxDiff);
        BenchResults.record(
            new BenchResult(
                String.format(Locale.ROOT, "embedding through the job, %,d sentences", TEXTS),
                String.format(Locale.ROOT, "%,.1f sentences/s", sparkMedian),
                String.format(Locale.ROOT, "raw ONNX Runtime %,.1f sentences/s", rawMedian),
                sparkMedian / rawMedian,
                "ratio",
                true,
                0.85,
                String.format(
                    Locale.ROOT,
                    "medians of %d rounds (best %.3f), batch %d, ORT threads %d, %d partition(s),"
                        + " %d cores",
                    ROUNDS,
                    sparkBest / rawBest,
                    BATCH,
                    THREADS,
                    PARALLELISM,
                    Runtime.getRuntime().availableProcessors())));
        System.out.println(
            "  reproduce: mvn -o -B -pl udfs,jobs,tests package -Dinfuse.excludedGroups= -Dgroups=benchmark"
                + " -Dtest=EmbeddingThroughputBenchmarkTest -Dsurefire.failIfNoSpecifiedTests=false");
        System.out.flush();
      }
    }
  }

  /**
   * Runs the job's transform over every chunk and counts the embeddings, which consumes every row.
   */
  private static long sparkPath(SparkSession spark, Dataset<Row> chunks, EmbedderSpec spec) {
    return EmbedJob.transform(spark, chunks, spec, "all-minilm-l6-v2")
        .filter("kind = 'embedding'")
        .count();
  }

  /**
   * The baseline: the same steps as the job, with ONNX Runtime called directly and no Spark or DJL.
   */
  private record RawOrt(OrtEnvironment env, OrtSession session, EmbeddingTokenizer tokenizer) {
    float[][] embedAll(List<String> texts, int threads) throws Exception {
      float[][] result = new float[texts.size()][];
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      try {
        List<Future<?>> slices = new ArrayList<>();
        int per = (texts.size() + threads - 1) / threads;
        for (int t = 0; t < threads; t++) {
          int from = Math.min(texts.size(), t * per);
          int to = Math.min(texts.size(), from + per);
          slices.add(
              pool.submit(
                  () -> {
                    for (int w = from; w < to; w += WINDOW) {
                      int end = Math.min(to, w + WINDOW);
                      float[][] vectors = embedWindow(texts.subList(w, end));
                      System.arraycopy(vectors, 0, result, w, vectors.length);
                    }
                    return null;
                  }));
        }
        for (Future<?> slice : slices) {
          slice.get();
        }
      } finally {
        pool.shutdown();
      }
      return result;
    }

    private float[][] embedWindow(List<String> texts) throws Exception {
      List<TokenIds> tokens = tokenizer.tokenize(texts);
      float[][] result = new float[texts.size()][];
      for (int[] batchRows : LengthSortedBatches.of(tokens, BATCH)) {
        List<TokenIds> rows = new ArrayList<>();
        for (int index : batchRows) {
          rows.add(tokens.get(index));
        }
        TokenBatch batch = TokenBatch.pad(rows);
        long[] shape = {batch.rows(), batch.length()};
        Map<String, OnnxTensor> inputs = new HashMap<>();
        try {
          for (String name : session.getInputNames()) {
            long[] data =
                switch (name) {
                  case "input_ids" -> batch.inputIds();
                  case "attention_mask" -> batch.attentionMask();
                  default -> batch.tokenTypeIds();
                };
            inputs.put(name, OnnxTensor.createTensor(env, LongBuffer.wrap(data), shape));
          }
          try (OrtSession.Result output = session.run(inputs)) {
            OnnxValue value = output.get("last_hidden_state").orElse(output.get(0));
            OnnxTensor hidden = (OnnxTensor) value;
            long[] hiddenShape = hidden.getInfo().getShape();
            float[] values = new float[(int) (hiddenShape[0] * hiddenShape[1] * hiddenShape[2])];
            hidden.getFloatBuffer().get(values);
            float[][] vectors =
                Pooling.meanPoolNormalized(
                    values,
                    batch.attentionMask(),
                    batch.rows(),
                    batch.length(),
                    (int) hiddenShape[2]);
            for (int i = 0; i < batchRows.length; i++) {
              result[batchRows[i]] = vectors[i];
            }
          }
        } finally {
          inputs.values().forEach(OnnxTensor::close);
        }
      }
      return result;
    }
  }

  /**
   * Sentences of the QuALITY sample's articles, in order, repeated if more are asked for than it
   * has.
   */
  private static List<String> sentences(int count) throws Exception {
    ObjectMapper json = new ObjectMapper();
    List<String> sentences = new ArrayList<>();
    for (String line :
        Files.readAllLines(
            SparkTestSession.repoRoot().resolve("samples/quality/quality_dev_sample.jsonl"))) {
      if (line.isBlank()) {
        continue;
      }
      for (String sentence : json.readTree(line).get("article").asText().split("(?<=[.!?])\\s+")) {
        String text = sentence.replaceAll("\\s+", " ").strip();
        if (text.length() >= 20) {
          sentences.add(text);
        }
      }
    }
    List<String> result = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      result.add(sentences.get(i % sentences.size()));
    }
    return result;
  }

  private static Dataset<Row> chunks(SparkSession spark, List<String> texts, int partitions) {
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < texts.size(); i++) {
      rows.add(RowFactory.create("c" + i, "d" + (i / 50), texts.get(i), "0".repeat(64)));
    }
    StructType schema =
        new StructType()
            .add("chunk_id", DataTypes.StringType)
            .add("doc_id", DataTypes.StringType)
            .add("text", DataTypes.StringType)
            .add("text_sha256", DataTypes.StringType);
    return spark.createDataFrame(
        new JavaSparkContext(spark.sparkContext()).parallelize(rows, partitions), schema);
  }

  private static double maxDifference(float[][] a, float[][] b) {
    double max = 0;
    for (int i = 0; i < a.length; i++) {
      for (int d = 0; d < a[i].length; d++) {
        max = Math.max(max, Math.abs(a[i][d] - b[i][d]));
      }
    }
    return max;
  }

  private static double median(List<Double> values) {
    List<Double> sorted = values.stream().sorted().toList();
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  private static String format(List<Double> rates) {
    return rates.stream().map(r -> String.format(Locale.ROOT, "%.1f", r)).toList().toString();
  }
}
