package dev.infuse.jobs.shards;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.jobs.contract.Contracts;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.udfs.lm.CharTokenizer;
import dev.infuse.udfs.mix.QaTemplate;
import dev.infuse.udfs.text.Tokenizers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/**
 * Unique and seen synthetic tokens on a hand-made build: two generators, two rows with the same
 * text, every source repeated max_epochs (3) times, counted in a character tokenizer (one token per
 * character) that is not the shard tokenizer (MiniLM WordPiece), so every expected count is a sum
 * of string lengths.
 */
class SyntheticTokenCountsTest {
  private static final SparkSession SPARK = SparkTestSession.get();
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SMALL = "openai:small-model";
  private static final String LARGE = "openai:large-model";
  private static final String SAME = "the lighthouse keeper logged every ship that passed the cape";

  @Test
  void uniqueAndSeenTokensPerGeneratorInTheNamedTokenizer() throws Exception {
    String warehouse = SparkTestSession.tempDir("synthetic-tokens").toString();
    Path home = SparkTestSession.tempDir("synthetic-tokens-home");
    Warehouse w = new Warehouse(SPARK, warehouse);
    w.append(
        Contracts.load("documents"),
        SPARK.createDataFrame(
            List.of(
                RowFactory.create(
                    "t:d1",
                    "t",
                    null,
                    "the original article about the cape and its lighthouse keeper",
                    "f",
                    null,
                    scala.collection.immutable.Map$.MODULE$.empty())),
            Contracts.load("documents").schema()));
    List<String[]> qa =
        List.of(
            new String[] {"q1", "Who kept the lighthouse?", "The keeper.", SMALL},
            new String[] {"q2", "What did he log?", "Every ship.", SMALL},
            new String[] {"q3", "Where is the lighthouse?", "On the cape.", LARGE});
    w.append(
        Contracts.load("synthetic_qa"),
        SPARK.createDataFrame(
            qa.stream()
                .map(
                    q ->
                        RowFactory.create(
                            q[0], "t:d1", null, q[1], q[2], q[3], "gen-qa", 1, 0L, "k" + q[0]))
                .toList(),
            Contracts.load("synthetic_qa").schema()));
    // s1 and s2 hold the same text: one distinct text, seen twice per epoch.
    List<String[]> docs =
        List.of(
            new String[] {"s1", SAME, SMALL},
            new String[] {"s2", SAME, SMALL},
            new String[] {"s3", "a storm closed the harbour for three days in winter", LARGE});
    w.append(
        Contracts.load("synthetic_docs"),
        SPARK.createDataFrame(
            docs.stream()
                .map(
                    d ->
                        RowFactory.create(
                            d[0],
                            "t:d1",
                            "rephrase",
                            "simple",
                            List.of(),
                            d[1],
                            1,
                            d[2],
                            "gen-docs",
                            1,
                            0L,
                            "k" + d[0]))
                .toList(),
            Contracts.load("synthetic_docs").schema()));
    // A target far above what the sources hold: every source is capped at max_epochs, 3 whole
    // passes, so each text is written exactly three times.
    Files.writeString(
        home.resolve("thrice.yaml"),
        """
        name: thrice
        version: 1
        total_tokens: 1000000
        qa_fraction: 0.5
        replay_fraction: 0.0
        document_weights: {documents: 0.5, synthetic_docs.rephrase: 0.5}
        max_epochs: 3
        seed: 5
        """);
    Path chars = home.resolve("chars/tokenizer.json");
    Files.createDirectories(chars.getParent());
    Files.writeString(chars, CharTokenizer.json());

    CliResult build =
        SparkTestSession.cli(
            "build-shards",
            "--warehouse",
            warehouse,
            "--mixture",
            home.resolve("thrice.yaml").toString(),
            "--output",
            "out/thrice",
            "--formats",
            "parquet,jsonl",
            "--sequence-length",
            "32",
            "--set",
            "shards.dedup.enabled=false",
            "--set",
            "shards.decontamination.enabled=false",
            "--set",
            "shards.count_tokenizer=" + chars);
    assertThat(build.code()).as(build.toString()).isZero();
    assertThat(build.out()).contains("synthetic tokens in " + chars);

    long q1 = qaLength("Who kept the lighthouse?", "The keeper.");
    long q2 = qaLength("What did he log?", "Every ship.");
    long q3 = qaLength("Where is the lighthouse?", "On the cape.");
    long same = SAME.length();
    long s3 = docs.get(2)[1].length();
    JsonNode info = JSON.readTree(Path.of(warehouse, "out/thrice/info.json").toFile());
    JsonNode counts = info.get("synthetic_token_counts");
    assertThat(counts.get("tokenizer").asText()).isEqualTo(chars.toString());
    assertThat(counts.get("tokenizer_sha256").asText()).isEqualTo(sha256(CharTokenizer.json()));
    assertThat(counts.get("texts").asLong()).isEqualTo(5);
    assertThat(counts.get("unique").asLong()).isEqualTo(q1 + q2 + q3 + same + s3);
    assertThat(counts.get("seen").asLong()).isEqualTo(3 * (q1 + q2 + q3 + 2 * same + s3));

    JsonNode small = counts.get("by_generator").get(SMALL);
    assertThat(small.get("texts").asLong()).isEqualTo(3);
    assertThat(small.get("unique").asLong()).isEqualTo(q1 + q2 + same);
    assertThat(small.get("seen").asLong()).isEqualTo(3 * (q1 + q2 + 2 * same));
    JsonNode large = counts.get("by_generator").get(LARGE);
    assertThat(large.get("unique").asLong()).isEqualTo(q3 + s3);
    assertThat(large.get("seen").asLong()).isEqualTo(3 * (q3 + s3));
    assertThat(
            counts.get("by_source").get("synthetic_docs.rephrase").get(SMALL).get("seen").asLong())
        .isEqualTo(3 * 2 * same);
    assertThat(counts.get("by_source").get("synthetic_qa").get(LARGE).get("unique").asLong())
        .isEqualTo(q3);

    // The legacy count is another tokenizer's (MiniLM WordPiece, each text's EOS included).
    long wordPiece = 0;
    for (String[] q : qa) {
      wordPiece +=
          Tokenizers.defaultTokenizer()
                  .ids(QaTemplate.QUESTION_PREFIX + q[1] + QaTemplate.ANSWER_PREFIX)
                  .length
              + Tokenizers.defaultTokenizer().ids(q[2]).length;
    }
    for (String[] d : docs) {
      wordPiece += Tokenizers.defaultTokenizer().ids(d[1]).length;
    }
    assertThat(info.get("synthetic_tokens").asLong()).isEqualTo(3 * (wordPiece + 6));

    // Seen and unique agree with the texts the JSONL shards hold, counted apart from the build.
    long seenInShards = 0;
    Set<String> distinct = new HashSet<>();
    for (String line :
        Files.readAllLines(Path.of(warehouse, "out/thrice/jsonl/shard-00000-of-00001.jsonl"))) {
      JsonNode record = JSON.readTree(line);
      if (record.get("source").asText().startsWith("synthetic_")) {
        String text = record.get("text").asText();
        seenInShards += text.length();
        distinct.add(text);
      }
    }
    assertThat(seenInShards).isEqualTo(counts.get("seen").asLong());
    assertThat(distinct.stream().mapToLong(String::length).sum())
        .isEqualTo(counts.get("unique").asLong());

    // train carries the counts and the generators into the model's train_info.json.
    CliResult train =
        SparkTestSession.cli(
            "train",
            "--warehouse",
            warehouse,
            "--shards",
            Path.of(warehouse, "out/thrice").toString(),
            "--model-dir",
            "models/thrice",
            "--steps",
            "2",
            "--set",
            "train.layers=1",
            "--set",
            "train.d_model=16",
            "--set",
            "train.heads=2",
            "--set",
            "train.sequence_length=32",
            "--set",
            "train.warmup_steps=1",
            "--set",
            "train.device=cpu");
    assertThat(train.code()).as(train.toString()).isZero();
    assertThat(train.out()).contains("not this model's tokenizer");
    JsonNode trainInfo =
        JSON.readTree(Path.of(warehouse, "models/thrice/train_info.json").toFile());
    assertThat(trainInfo.get("synthetic_token_counts")).isEqualTo(counts);
    assertThat(trainInfo.get("generator").asText()).isEqualTo(LARGE + "+" + SMALL);
    assertThat(trainInfo.get("count_tokenizer_is_model_tokenizer").asBoolean()).isFalse();
    assertThat(trainInfo.get("synthetic_tokens").asLong()).isEqualTo(3 * (wordPiece + 6));
  }

  @Test
  void aMissingCountTokenizerIsAConfigError() throws Exception {
    String warehouse = SparkTestSession.tempDir("synthetic-tokens-bad").toString();
    Path mixture = SparkTestSession.tempDir("synthetic-tokens-bad-home").resolve("once.yaml");
    Files.writeString(
        mixture,
        """
        name: once
        version: 1
        total_tokens: 0
        qa_fraction: 0.5
        replay_fraction: 0.0
        document_weights: {documents: 1.0}
        max_epochs: 1
        seed: 5
        """);
    new Warehouse(SPARK, warehouse)
        .append(
            Contracts.load("documents"),
            SPARK.createDataFrame(
                List.<Row>of(
                    RowFactory.create(
                        "t:x",
                        "t",
                        null,
                        "some text",
                        "f",
                        null,
                        scala.collection.immutable.Map$.MODULE$.empty())),
                Contracts.load("documents").schema()));
    CliResult build =
        SparkTestSession.cli(
            "build-shards",
            "--warehouse",
            warehouse,
            "--mixture",
            mixture.toString(),
            "--set",
            "shards.decontamination.enabled=false",
            "--set",
            "shards.count_tokenizer=/no/such/tokenizer.json");
    assertThat(build.code()).isEqualTo(2);
    assertThat(build.err())
        .contains("shards.count_tokenizer: got /no/such/tokenizer.json")
        .contains("tokenizer.json");
  }

  /** A QA pair's characters as QaTemplate lays it out. */
  private static long qaLength(String question, String answer) {
    return (QaTemplate.QUESTION_PREFIX + question + QaTemplate.ANSWER_PREFIX + answer).length();
  }

  private static String sha256(String text) throws Exception {
    return HexFormat.of()
        .formatHex(
            MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
  }
}
