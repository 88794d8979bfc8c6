package dev.infuse.jobs.shards;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.jobs.contract.Contracts;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.udfs.shards.MegatronDatasetReader;
import dev.infuse.udfs.text.TextTokenizer;
import dev.infuse.udfs.text.Tokenizers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * build-shards end to end on a small warehouse with a planted near-duplicate cluster and a planted
 * benchmark question: the formats, their reconciliation with each other and the manifest,
 * determinism, the seed, the mixture's proportions, unpacked mode, and the errors a user can make.
 */
class BuildShardsJobTest {
  private static final SparkSession SPARK = SparkTestSession.get();
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String PLANTED_QUESTION =
      "which of the following best describes the reason the harbor master closed the northern gate before the storm";
  private static final String[] WORDS =
      ("river mountain lantern harvest library engine garden captain winter signal"
              + " market bridge forest window doctor island letter station orchard thunder pencil village silver morning"
              + " teacher planet castle meadow ticket kettle violin desert camera ladder anchor basket candle feather"
              + " glacier hammer jacket marble needle pepper rocket saddle tunnel walnut yellow zebra")
          .split(" ");

  private static String warehouse;
  private static Path home;

  @BeforeAll
  static void plantAWarehouse() throws IOException {
    warehouse = SparkTestSession.tempDir("shards").toString();
    home = SparkTestSession.tempDir("shards-home");
    Warehouse w = new Warehouse(SPARK, warehouse);
    Random random = new Random(11);
    List<Row> documents = new ArrayList<>();
    String original = words(random, 120);
    documents.add(document("t:d01", original));
    // Three near copies of d01 (one word changed each) and one exact copy: one cluster, one
    // survivor.
    for (int copy = 1; copy <= 3; copy++) {
      String[] edited = original.split(" ");
      edited[copy * 30] = "zeppelin";
      documents.add(document("t:d01-copy" + copy, String.join(" ", edited)));
    }
    documents.add(document("t:d01-exact", original.toUpperCase()));
    for (int i = 2; i <= 8; i++) {
      documents.add(document(String.format("t:d%02d", i), words(random, 80 + 10 * i)));
    }
    w.append(
        Contracts.load("documents"),
        SPARK.createDataFrame(documents, Contracts.load("documents").schema()));

    List<Row> qa = new ArrayList<>();
    for (int i = 0; i < 24; i++) {
      qa.add(
          RowFactory.create(
              String.format("qa%02d", i),
              "t:d02",
              null,
              "What is the " + words(random, 6) + "?",
              "The " + words(random, 4) + ".",
              "g",
              "gen-qa",
              1,
              0L,
              "k" + i));
    }
    w.append(
        Contracts.load("synthetic_qa"),
        SPARK.createDataFrame(qa, Contracts.load("synthetic_qa").schema()));

    List<Row> synthetic = new ArrayList<>();
    int n = 0;
    for (String kind : List.of("rephrase", "entity", "focal")) {
      for (int i = 0; i < 6; i++) {
        String text = words(random, 60 + 7 * i);
        if (kind.equals("rephrase") && i == 0) {
          // Long enough on both sides that each keeps a clean piece of 200 characters past the
          // 200-character margin.
          text = words(random, 80) + " " + PLANTED_QUESTION + " " + words(random, 80);
        }
        synthetic.add(
            RowFactory.create(
                String.format("s%02d", n++),
                "t:d03",
                kind,
                "v",
                kind.equals("rephrase") ? List.of() : List.of("e"),
                text,
                1,
                "g",
                "gen-docs",
                1,
                0L,
                "ks" + n));
      }
    }
    w.append(
        Contracts.load("synthetic_docs"),
        SPARK.createDataFrame(synthetic, Contracts.load("synthetic_docs").schema()));

    w.append(
        Contracts.load("questions"),
        SPARK.createDataFrame(
            List.of(
                RowFactory.create(
                    "quality:q1",
                    null,
                    "quality",
                    "dev",
                    PLANTED_QUESTION + "?",
                    List.of("wind", "rain", "a ship", "fog"),
                    "B",
                    1,
                    "mcq",
                    List.of(),
                    Map.of())),
            Contracts.load("questions").schema()));

    // A mixture with a token target, so shares and epochs apply (QA is upsampled, documents
    // subsampled).
    Files.writeString(
        home.resolve("mix.yaml"),
        """
        name: test-mix
        version: 1
        total_tokens: 6000
        qa_fraction: 0.3
        replay_fraction: 0.0
        document_weights: {documents: 0.25, synthetic_docs.rephrase: 0.25, synthetic_docs.entity: 0.25, synthetic_docs.focal: 0.25}
        max_epochs: 4
        seed: 7
        """);
    Files.writeString(
        home.resolve("all-once.yaml"),
        """
        name: all-once
        version: 1
        total_tokens: 0
        qa_fraction: 0.5
        replay_fraction: 0.0
        document_weights: {documents: 0.25, synthetic_docs.rephrase: 0.25, synthetic_docs.entity: 0.25, synthetic_docs.focal: 0.25}
        max_epochs: 1
        seed: 7
        """);
  }

  @Test
  void writesEveryFormatThatReconcilesWithTheManifestAndTrainsOnTheParquet() throws Exception {
    CliResult build = build("out/main", "mix.yaml", "--set", "shards.tokens_per_shard=2000");
    assertThat(build.code()).as(build.toString()).isZero();
    Path out = Path.of(warehouse, "out/main");
    Warehouse w = new Warehouse(SPARK, warehouse);
    List<Row> manifest =
        w.read("shard_manifest")
            .filter("output LIKE '%out/main'")
            .orderBy("format", "shard")
            .collectAsList();
    int shards = manifest.get(0).getAs("num_shards");
    assertThat(shards).isGreaterThan(1);
    assertThat(manifest).hasSize(3 * shards);
    assertThat(out.resolve("COMPLETED")).isRegularFile();
    JsonNode info = JSON.readTree(out.resolve("info.json").toFile());
    for (String format : List.of("parquet", "jsonl", "megatron")) {
      assertThat(info.get("formats").get(format).get("shards")).hasSize(shards);
      // The manifest's checksums are the files' checksums.
      for (Row row : manifest) {
        if (row.<String>getAs("format").equals(format)) {
          for (Row file : row.<Row>getList(row.fieldIndex("files"))) {
            Path path = out.resolve(format).resolve(file.<String>getAs("name"));
            assertThat(Files.size(path)).isEqualTo(file.<Long>getAs("bytes"));
            assertThat(sha256(path)).isEqualTo(file.<String>getAs("sha256"));
          }
        }
      }
    }

    // Composition and tokens agree across formats, and with stats.json's sample.
    Map<String, Map<String, Long>> composition = new TreeMap<>();
    Map<String, Long> tokens = new TreeMap<>();
    for (Row row : manifest) {
      String format = row.getAs("format");
      tokens.merge(format, row.<Long>getAs("tokens"), Long::sum);
      scala.collection.Map<String, Long> bySource = row.getAs("composition");
      scala.collection.JavaConverters.mapAsJavaMap(bySource)
          .forEach(
              (source, n) ->
                  composition
                      .computeIfAbsent(format, f -> new TreeMap<>())
                      .merge(source, n, Long::sum));
    }
    assertThat(composition.get("jsonl"))
        .isEqualTo(composition.get("parquet"))
        .isEqualTo(composition.get("megatron"));
    assertThat(tokens.get("jsonl"))
        .isEqualTo(tokens.get("parquet"))
        .isEqualTo(tokens.get("megatron"));
    JsonNode stats = JSON.readTree(out.resolve("stats.json").toFile());
    composition
        .get("parquet")
        .forEach(
            (source, n) ->
                assertThat(stats.get("sources").get(source).get("sampled_tokens").asLong())
                    .as(source)
                    .isEqualTo(n));

    // Packed tokens = the texts' tokens + one separator each: tokenize the JSONL texts
    // independently.
    TextTokenizer tokenizer = Tokenizers.defaultTokenizer();
    long textTokens = 0;
    long lines = 0;
    int eos = info.get("eos_id").asInt();
    Map<String, Long> jsonlTokensBySource = new TreeMap<>();
    Map<String, Long> megatronTokensBySource = new TreeMap<>();
    List<Path> jsonlFiles;
    try (Stream<Path> files = Files.list(out.resolve("jsonl"))) {
      jsonlFiles = files.filter(f -> f.toString().endsWith(".jsonl")).sorted().toList();
    }
    assertThat(jsonlFiles).hasSize(shards);
    for (Path file : jsonlFiles) {
      // The job's own .bin/.idx, read by the independent MMIDIDX reader: one document per JSONL
      // line, in the same order, holding that line's text re-tokenized here plus EOS.
      String shard = file.getFileName().toString().replace(".jsonl", "");
      List<int[]> megatron =
          MegatronDatasetReader.read(out.resolve("megatron").resolve(shard)).documents();
      List<String> shardLines = Files.readAllLines(file);
      assertThat(megatron).as(shard + " documents").hasSameSizeAs(shardLines);
      for (int i = 0; i < shardLines.size(); i++) {
        JsonNode line = JSON.readTree(shardLines.get(i));
        int[] ids = tokenizer.ids(line.get("text").asText());
        int[] expected = java.util.Arrays.copyOf(ids, ids.length + 1);
        expected[ids.length] = eos;
        assertThat(megatron.get(i)).as(shard + " document " + i).containsExactly(expected);
        String source = line.get("source").asText();
        jsonlTokensBySource.merge(source, (long) expected.length, Long::sum);
        megatronTokensBySource.merge(source, (long) megatron.get(i).length, Long::sum);
        textTokens += expected.length;
        lines++;
      }
    }
    assertThat(megatronTokensBySource)
        .isEqualTo(jsonlTokensBySource)
        .isEqualTo(composition.get("megatron"));
    List<Row> sequences = SPARK.read().parquet(out.resolve("parquet").toString()).collectAsList();
    long padding = manifest.stream().mapToLong(r -> r.<Long>getAs("padding_tokens")).sum();
    assertThat((long) sequences.size() * 32 - padding)
        .isEqualTo(textTokens)
        .isEqualTo(tokens.get("parquet"));
    assertThat(lines)
        .isEqualTo(
            manifest.stream()
                .filter(r -> r.getAs("format").equals("jsonl"))
                .mapToLong(r -> r.<Long>getAs("documents"))
                .sum());
    for (Row sequence : sequences) {
      assertThat(sequence.<Integer>getList(sequence.fieldIndex("input_ids"))).hasSize(32);
      assertThat(
              sequence.<Integer>getList(sequence.fieldIndex("document_lengths")).stream()
                  .mapToInt(i -> i)
                  .sum())
          .isEqualTo(32);
    }

    // The planted cluster keeps only its smallest key; every distinct document survives.
    List<Row> drops = w.read("shard_dedup_drops").filter("output LIKE '%out/main'").collectAsList();
    assertThat(drops)
        .extracting(r -> r.<String>getAs("row_key"))
        .containsExactlyInAnyOrder(
            "documents/t:d01-copy1",
            "documents/t:d01-copy2",
            "documents/t:d01-copy3",
            "documents/t:d01-exact");
    assertThat(drops)
        .allSatisfy(r -> assertThat(r.<String>getAs("kept_row_key")).isEqualTo("documents/t:d01"));
    assertThat(stats.get("sources").get("documents").get("rows_tokenized").asLong()).isEqualTo(8);

    // The planted benchmark question is cut out of the rephrase and the cut is logged; the two
    // clean pieces around it train as two texts.
    List<Row> hits =
        w.read("decontamination_hits").filter("output LIKE '%out/main'").collectAsList();
    assertThat(hits)
        .isNotEmpty()
        .allSatisfy(
            hit -> {
              assertThat(hit.<String>getAs("row_key")).isEqualTo("synthetic_docs.rephrase/s00");
              assertThat(hit.<String>getAs("question_id")).isEqualTo("quality:q1");
              assertThat(hit.<String>getAs("action")).isEqualTo("cut");
            });
    assertThat(
            stats
                .get("sources")
                .get("synthetic_docs.rephrase")
                .get("decontamination_shortened")
                .asLong())
        .isEqualTo(1);
    assertThat(stats.get("sources").get("synthetic_docs.rephrase").get("rows_tokenized").asLong())
        .isEqualTo(7);
    try (Stream<Path> files = Files.list(out.resolve("jsonl"))) {
      for (Path file : files.filter(f -> f.toString().endsWith(".jsonl")).toList()) {
        assertThat(Files.readString(file)).doesNotContain("harbor master closed the northern gate");
      }
    }

    // The mixture's shares hold: each source within 25% of its budget (rows are sampled whole, 6-24
    // per source).
    for (String source :
        List.of(
            "synthetic_qa",
            "documents",
            "synthetic_docs.rephrase",
            "synthetic_docs.entity",
            "synthetic_docs.focal")) {
      JsonNode s = stats.get("sources").get(source);
      double budget = s.get("budget_tokens").asDouble() - s.get("shortfall_tokens").asDouble();
      assertThat(s.get("sampled_tokens").asDouble())
          .as(source)
          .isCloseTo(budget, within(0.25 * budget));
    }
    Row run =
        w.read("runs")
            .filter("job = 'build-shards'")
            .orderBy(org.apache.spark.sql.functions.col("started_at").desc())
            .head();
    assertThat(run.<Long>getAs("input_count"))
        .isEqualTo(12L + 24 + 18) // documents, QA pairs, synthetic documents
        .isEqualTo(run.<Long>getAs("output_count") + run.<Long>getAs("quarantined_count"));

    // train reads the Parquet shards.
    CliResult train =
        SparkTestSession.cli(
            "train",
            "--warehouse",
            warehouse,
            "--shards",
            out.toString(),
            "--model-dir",
            "models/from-shards",
            "--steps",
            "3",
            "--set",
            "train.layers=1",
            "--set",
            "train.d_model=32",
            "--set",
            "train.heads=2",
            "--set",
            "train.sequence_length=32",
            "--set",
            "train.warmup_steps=1",
            "--set",
            "train.device=cpu");
    assertThat(train.code()).as(train.toString()).isZero();
    JsonNode trainInfo =
        JSON.readTree(Path.of(warehouse, "models/from-shards/train_info.json").toFile());
    assertThat(trainInfo.get("synthetic_tokens").asLong())
        .isEqualTo(
            composition.get("parquet").entrySet().stream()
                .filter(e -> e.getKey().startsWith("synthetic_"))
                .mapToLong(Map.Entry::getValue)
                .sum());
  }

  @Test
  void theSameSeedGivesTheSameBytesAndAnotherSeedReordersTheSameTexts() throws Exception {
    assertThat(build("out/a", "all-once.yaml").code()).isZero();
    assertThat(build("out/b", "all-once.yaml").code()).isZero();
    // The same build again, over the same table versions, is up to date: it writes nothing.
    Warehouse w = new Warehouse(SPARK, warehouse);
    long manifestVersion = w.version("shard_manifest");
    long completedAt = Files.getLastModifiedTime(Path.of(warehouse, "out/a/COMPLETED")).toMillis();
    CliResult again = build("out/a", "all-once.yaml");
    assertThat(again.out()).as(again.toString()).contains("is up to date");
    assertThat(w.version("shard_manifest")).isEqualTo(manifestVersion);
    assertThat(Files.getLastModifiedTime(Path.of(warehouse, "out/a/COMPLETED")).toMillis())
        .isEqualTo(completedAt);
    assertThat(build("out/c", "all-once.yaml", "--seed", "8").code()).isZero();
    Map<String, String> a = checksums(Path.of(warehouse, "out/a"));
    assertThat(a).hasSize(4 + 3); // parquet, jsonl, bin + idx; info.json, stats.json, COMPLETED
    Map<String, String> b = checksums(Path.of(warehouse, "out/b"));
    for (String file : a.keySet()) {
      if (file.contains("shard-")) {
        assertThat(b.get(file)).as(file).isEqualTo(a.get(file));
      }
    }
    Map<String, String> c = checksums(Path.of(warehouse, "out/c"));
    assertThat(c.get("jsonl/shard-00000-of-00001.jsonl"))
        .isNotEqualTo(a.get("jsonl/shard-00000-of-00001.jsonl"));
    List<String> linesA =
        Files.readAllLines(Path.of(warehouse, "out/a/jsonl/shard-00000-of-00001.jsonl"));
    List<String> linesC =
        Files.readAllLines(Path.of(warehouse, "out/c/jsonl/shard-00000-of-00001.jsonl"));
    assertThat(linesC).isNotEqualTo(linesA).containsExactlyInAnyOrderElementsOf(linesA);
    assertThat(linesA).allSatisfy(line -> assertThat(line).startsWith("{\"text\":"));
  }

  @Test
  void unpackedShardsHoldOneTextPerSequence() {
    CliResult build =
        build(
            "out/unpacked", "all-once.yaml", "--formats", "parquet", "--set", "shards.pack=false");
    assertThat(build.code()).as(build.toString()).isZero();
    List<Row> sequences =
        SPARK.read().parquet(Path.of(warehouse, "out/unpacked/parquet").toString()).collectAsList();
    assertThat(sequences)
        .allSatisfy(
            s ->
                assertThat(s.<Integer>getList(s.fieldIndex("document_lengths")).size())
                    .isBetween(1, 2));
    assertThat(Path.of(warehouse, "out/unpacked/jsonl")).doesNotExist();
  }

  @Test
  void aMixtureThatCannotBeMetOrAMissingBenchmarkTableIsAClearError() throws IOException {
    Files.writeString(
        home.resolve("replay.yaml"),
        Files.readString(home.resolve("mix.yaml"))
            .replace("replay_fraction: 0.0", "replay_fraction: 0.2")
            .replace("name: test-mix", "name: replay-mix"));
    CliResult noReplay = build("out/bad", "replay.yaml");
    assertThat(noReplay.code()).isEqualTo(2);
    assertThat(noReplay.err()).contains("shards.mixture").contains("source replay: empty");

    String empty = SparkTestSession.tempDir("shards-no-questions").toString();
    new Warehouse(SPARK, empty)
        .append(
            Contracts.load("documents"),
            SPARK.createDataFrame(
                List.of(document("t:x", "some text here")), Contracts.load("documents").schema()));
    CliResult noQuestions =
        SparkTestSession.cli(
            "build-shards",
            "--warehouse",
            empty,
            "--mixture",
            home.resolve("all-once.yaml").toString());
    assertThat(noQuestions.code()).isEqualTo(2);
    assertThat(noQuestions.err())
        .contains("shards.decontamination.enabled")
        .contains("no questions table");

    CliResult badFormat = build("out/bad", "mix.yaml", "--formats", "parquet,arrow");
    assertThat(badFormat.code()).isEqualTo(2);
    assertThat(badFormat.err())
        .contains("shards.formats: got arrow, expected parquet, jsonl or megatron");
  }

  private static CliResult build(String output, String mixture, String... more) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "build-shards",
                "--warehouse",
                warehouse,
                "--mixture",
                home.resolve(mixture).toString(),
                "--output",
                output,
                "--sequence-length",
                "32"));
    args.addAll(List.of(more));
    return SparkTestSession.cli(args.toArray(String[]::new));
  }

  private static Row document(String id, String text) {
    return RowFactory.create(
        id, "t", null, text, "f", null, scala.collection.immutable.Map$.MODULE$.empty());
  }

  private static String words(Random random, int n) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < n; i++) {
      text.append(i == 0 ? "" : " ").append(WORDS[random.nextInt(WORDS.length)]);
    }
    return text.toString();
  }

  private static Map<String, String> checksums(Path dir) throws Exception {
    Map<String, String> sums = new TreeMap<>();
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path file : files.filter(Files::isRegularFile).toList()) {
        sums.put(dir.relativize(file).toString(), sha256(file));
      }
    }
    return sums;
  }

  private static String sha256(Path file) throws Exception {
    return HexFormat.of()
        .formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
  }
}
