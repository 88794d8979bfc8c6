package dev.infuse.tests;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.jobs.io.Warehouse;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;
import org.jclouds.blobstore.TransientApiMetadata;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The warehouse and the shard output on {@code s3a://}, against an S3 server in this JVM (s3proxy
 * over jclouds' in-memory blob store, on 127.0.0.1): ingest and build-shards through the CLI, the
 * Delta tables and the runs table read back from the bucket, and the shards that build-shards
 * uploaded from its local scratch directory are on the object store with the sizes and checksums
 * that info.json and the manifest give, byte for byte those of the same build on the local file
 * system.
 *
 * <p>The shard upload runs in tasks, with the session's Hadoop configuration shipped to them (a
 * fresh {@code Configuration} on a cluster's executor has no endpoint and no credentials). In local
 * mode a task finds the driver's cached S3A file system, so this test does not by itself catch that
 * mistake: {@code fs.s3a.impl.disable.cache=true} would, at a fifth more run time.
 */
@Tag("production")
class ObjectStorageTest {
  private static final String BUCKET = "infuse-object-storage-test";
  private static final String ACCESS_KEY = "infuse-test-access";
  private static final String SECRET_KEY = "infuse-test-secret-0b6f2c";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<String> FORMATS = List.of("jsonl", "megatron", "parquet");
  private static final Map<String, String> S3A = new TreeMap<>();

  private static BlobStoreContext blobs;
  private static S3Proxy proxy;
  private static SparkSession spark;
  private static Path home;

  @BeforeAll
  static void startAnS3Server() throws Exception {
    blobs =
        ContextBuilder.newBuilder(new TransientApiMetadata())
            .credentials("identity", "credential")
            .build(BlobStoreContext.class);
    blobs.getBlobStore().createContainerInLocation(null, BUCKET);
    proxy =
        S3Proxy.builder()
            .blobStore(blobs.getBlobStore())
            .endpoint(URI.create("http://127.0.0.1:0"))
            .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
            .build();
    proxy.start();
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (!proxy.getState().equals("STARTED") && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(proxy.getState()).isEqualTo("STARTED");

    S3A.put("fs.s3a.endpoint", "http://127.0.0.1:" + proxy.getPort());
    S3A.put("fs.s3a.endpoint.region", "us-east-1");
    S3A.put("fs.s3a.path.style.access", "true");
    S3A.put("fs.s3a.connection.ssl.enabled", "false");
    S3A.put(
        "fs.s3a.aws.credentials.provider", "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider");
    S3A.put("fs.s3a.access.key", ACCESS_KEY);
    S3A.put("fs.s3a.secret.key", SECRET_KEY);
    // Fewer requests a write: keep directory markers rather than deleting the parents' after each.
    S3A.put("fs.s3a.directory.marker.retention", "keep");
    // Fail fast instead of retrying for minutes when something is wrong.
    S3A.put("fs.s3a.attempts.maximum", "2");
    S3A.put("fs.s3a.retry.limit", "2");
    S3A.put("fs.s3a.connection.establish.timeout", "5000");
    S3A.put("fs.s3a.connection.timeout", "20000");
    spark = SparkTestSession.get();
    Configuration conf = spark.sparkContext().hadoopConfiguration();
    S3A.forEach(conf::set);

    home = SparkTestSession.tempDir("object-storage-home");
    // Every document once, in a few small shards.
    Files.writeString(
        home.resolve("docs.yaml"),
        """
        name: docs
        version: 1
        total_tokens: 0
        qa_fraction: 0.0
        replay_fraction: 0.0
        document_weights: {documents: 1.0}
        max_epochs: 1
        seed: 3
        """);
  }

  @AfterAll
  static void stopTheS3Server() throws Exception {
    Configuration conf = spark.sparkContext().hadoopConfiguration();
    S3A.keySet().forEach(conf::unset);
    if (proxy != null) {
      proxy.stop();
    }
    if (blobs != null) {
      blobs.close();
    }
  }

  @Test
  void ingestAndBuildShardsOnS3aMatchTheLocalRun() throws Exception {
    long started = System.nanoTime();
    String remote = "s3a://" + BUCKET + "/wh";
    String localOutput =
        SparkTestSession.tempDir("object-storage-local").resolve("docs").toString();
    CliResult ingest = ingest(remote);
    assertThat(ingest.code()).as(ingest.toString()).isZero();
    lap("ingest on s3a", started);
    CliResult build = buildShards(remote, "shards/docs");
    assertThat(build.code()).as(build.toString()).isZero();
    lap("build-shards on s3a", started);
    // The same build from the same tables, into a directory on the local file system.
    CliResult buildLocal = buildShards(remote, localOutput);
    assertThat(buildLocal.code()).as(buildLocal.toString()).isZero();
    lap("build-shards to a local directory", started);

    // The Delta tables read back from the bucket, with every article and question of the sample.
    Warehouse onS3 = new Warehouse(spark, remote);
    assertThat(onS3.root()).isEqualTo(remote);
    assertThat(onS3.tables())
        .containsAll(List.of("documents", "questions", "runs", "shard_manifest"));
    long articles = 0;
    long questions = 0;
    java.util.Set<String> ids = new java.util.HashSet<>();
    for (String line : Files.readAllLines(sample())) {
      JsonNode article = JSON.readTree(line);
      ids.add(article.get("article_id").asText());
      questions += article.get("questions").size();
    }
    articles = ids.size();
    assertThat(onS3.read("documents").count()).as("documents").isEqualTo(articles);
    assertThat(onS3.read("questions").count()).as("questions").isEqualTo(questions);
    assertThat(
            blobs
                .getBlobStore()
                .blobExists(BUCKET, "wh/documents/_delta_log/" + "0".repeat(20) + ".json"))
        .as("the documents table's first commit, as an object in the bucket")
        .isTrue();

    // The runs table on s3a records the runs, finished.
    List<Row> runs = onS3.read("runs").orderBy("started_at").collectAsList();
    assertThat(runs)
        .extracting(r -> r.<String>getAs("job"))
        .containsExactly("ingest", "build-shards", "build-shards");
    assertThat(runs).allSatisfy(r -> assertThat(r.<String>getAs("status")).isEqualTo("succeeded"));
    assertThat(runs.get(0).<Long>getAs("output_count")).isEqualTo(articles + questions);
    assertThat(runs.get(1).<String>getAs("config_json")).contains("shards/docs");

    // The shards are on the object store, as info.json and the manifest describe them.
    String output = remote + "/shards/docs";
    FileSystem fs = new org.apache.hadoop.fs.Path(output).getFileSystem(hadoop());
    assertThat(fs.exists(new org.apache.hadoop.fs.Path(output, "COMPLETED"))).isTrue();
    JsonNode info = JSON.readTree(read(fs, output + "/info.json"));
    Map<String, String> onStore = new TreeMap<>();
    for (String format : FORMATS) {
      for (FileStatus file : fs.listStatus(new org.apache.hadoop.fs.Path(output, format))) {
        onStore.put(format + "/" + file.getPath().getName(), sha256(fs, file));
      }
    }
    List<Row> manifest =
        onS3.read("shard_manifest").filter("output = '" + output + "'").collectAsList();
    int shards = manifest.get(0).getAs("num_shards");
    assertThat(shards).as("several shards").isGreaterThan(1);
    assertThat(manifest).hasSize(FORMATS.size() * shards);
    int described = 0;
    for (Row row : manifest) {
      String format = row.getAs("format");
      JsonNode shardInfo =
          info.get("formats").get(format).get("shards").get(row.<Integer>getAs("shard"));
      for (Row file : row.<Row>getList(row.fieldIndex("files"))) {
        String name = file.getAs("name");
        org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(output + "/" + format, name);
        assertThat(fs.getFileStatus(path).getLen())
            .as(path.toString())
            .isEqualTo(file.<Long>getAs("bytes"));
        assertThat(onStore.get(format + "/" + name))
            .as(path.toString())
            .isEqualTo(file.<String>getAs("sha256"));
        assertThat(shardInfo.toString()).contains(name).contains(file.<String>getAs("sha256"));
        assertThat(blobs.getBlobStore().blobExists(BUCKET, "wh/shards/docs/" + format + "/" + name))
            .as("object " + name)
            .isTrue();
        described++;
      }
    }
    assertThat(onStore).as("only the shards the manifest names").hasSize(described);

    // Byte for byte the local build's shards.
    assertThat(onStore).isEqualTo(localChecksums(Path.of(localOutput)));

    // A rerun reads COMPLETED and info.json back from s3a and has nothing to do.
    CliResult again = buildShards(remote, "shards/docs");
    assertThat(again.code()).as(again.toString()).isZero();
    assertThat(again.out()).as(again.toString()).contains("is up to date");
    System.out.printf(
        "ObjectStorageTest: the pipeline, a local build and a rerun in %.1f s%n",
        (System.nanoTime() - started) / 1e9);
  }

  @Test
  void aMissingBucketOrRefusedCredentialsIsAClearError() {
    CliResult noBucket = ingest("s3a://no-such-bucket-here/wh");
    assertThat(noBucket.code()).as(noBucket.toString()).isEqualTo(2);
    assertThat(noBucket.err())
        .as(noBucket.toString())
        .contains("--warehouse: cannot reach s3a://no-such-bucket-here/wh")
        .contains("check that the bucket exists");

    String refused = "infuse-refused-key";
    blobs.getBlobStore().createContainerInLocation(null, refused);
    S3A.put("fs.s3a.bucket." + refused + ".secret.key", "not-the-secret");
    hadoop().set("fs.s3a.bucket." + refused + ".secret.key", "not-the-secret");
    CliResult badKey = ingest("s3a://" + refused + "/wh");
    assertThat(badKey.code()).as(badKey.toString()).isEqualTo(2);
    assertThat(badKey.err())
        .as(badKey.toString())
        .contains("--warehouse: cannot reach s3a://" + refused + "/wh")
        .contains("spark.hadoop.fs.s3a.*");

    CliResult noFileSystem = ingest("nosuchfs://bucket/wh");
    assertThat(noFileSystem.code()).as(noFileSystem.toString()).isEqualTo(2);
    assertThat(noFileSystem.err())
        .as(noFileSystem.toString())
        .contains("--warehouse: cannot open nosuchfs://bucket/wh")
        .contains("Hadoop file system is on the classpath");
  }

  private static void lap(String what, long started) {
    System.out.printf(
        "ObjectStorageTest: %s done at %.1f s%n", what, (System.nanoTime() - started) / 1e9);
  }

  private static Path sample() {
    return SparkTestSession.repoRoot().resolve("samples/quality/quality_dev_sample.jsonl");
  }

  private static CliResult ingest(String warehouse) {
    return SparkTestSession.cli(
        "ingest", "--format", "quality", "--input", sample().toString(), "--warehouse", warehouse);
  }

  private static CliResult buildShards(String warehouse, String output) {
    return SparkTestSession.cli(
        "build-shards",
        "--warehouse",
        warehouse,
        "--mixture",
        home.resolve("docs.yaml").toString(),
        "--output",
        output,
        "--sequence-length",
        "128",
        "--set",
        "shards.tokens_per_shard=6000");
  }

  private static Configuration hadoop() {
    return spark.sparkContext().hadoopConfiguration();
  }

  private static String read(FileSystem fs, String path) throws IOException {
    try (InputStream in = fs.open(new org.apache.hadoop.fs.Path(path))) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static String sha256(FileSystem fs, FileStatus file) throws Exception {
    try (InputStream in = fs.open(file.getPath())) {
      return HexFormat.of()
          .formatHex(MessageDigest.getInstance("SHA-256").digest(in.readAllBytes()));
    }
  }

  private static Map<String, String> localChecksums(Path output) throws Exception {
    Map<String, String> sums = new TreeMap<>();
    for (String format : FORMATS) {
      try (Stream<Path> files = Files.list(output.resolve(format))) {
        for (Path file : files.filter(f -> !f.getFileName().toString().startsWith(".")).toList()) {
          sums.put(
              format + "/" + file.getFileName(),
              HexFormat.of()
                  .formatHex(
                      MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file))));
        }
      }
    }
    return sums;
  }
}
