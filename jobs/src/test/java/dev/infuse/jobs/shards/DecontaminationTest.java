package dev.infuse.jobs.shards;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.infuse.jobs.SparkTestSession;
import dev.infuse.udfs.decontam.DecontaminationMode;
import dev.infuse.udfs.decontam.DecontaminationSettings;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

class DecontaminationTest {
  private static final String QUESTION =
      "Which organ of the body filters the blood and produces urine to remove waste products from the system?";
  private static final String GOLD =
      "The kidneys filter blood through roughly one million nephrons in each organ";
  private static final String PROSE =
      "Spring arrived late that year, and the orchards bloomed in the first week of May.";

  private static final StructType QUESTIONS =
      new StructType()
          .add("question_id", DataTypes.StringType)
          .add("question", DataTypes.StringType)
          .add("options", DataTypes.createArrayType(DataTypes.StringType))
          .add("gold", DataTypes.StringType)
          .add("gold_index", DataTypes.IntegerType)
          .add("answer_type", DataTypes.StringType)
          .add("doc_id", DataTypes.StringType);

  private static final StructType TRAINING =
      new StructType()
          .add("row_id", DataTypes.StringType)
          .add("text", DataTypes.StringType)
          .add("source", DataTypes.StringType);

  private static final StructType SOURCES =
      new StructType()
          .add("row_id", DataTypes.StringType)
          .add("source_row_id", DataTypes.StringType)
          .add("source", DataTypes.StringType)
          .add("doc_id", DataTypes.StringType)
          .add("prompt", DataTypes.StringType)
          .add("completion", DataTypes.StringType)
          .add("text", DataTypes.StringType);

  private static final StructType DOCUMENTS =
      new StructType().add("doc_id", DataTypes.StringType).add("text", DataTypes.StringType);

  private static Dataset<Row> questions(SparkSession spark) {
    return spark.createDataFrame(
        List.of(
            RowFactory.create(
                "medqa:1",
                QUESTION,
                Arrays.asList("The liver", GOLD, "The lungs", "The heart"),
                "B",
                1,
                "mcq",
                null),
            RowFactory.create(
                "gsm8k:2",
                "How many legs do three spiders and two ants have together?",
                null,
                "36",
                null,
                "numeric",
                null)),
        QUESTIONS);
  }

  private static Dataset<Row> training(SparkSession spark) {
    return spark.createDataFrame(
        List.of(
            RowFactory.create("clean", PROSE, "synthetic_docs"),
            RowFactory.create(
                "planted", PROSE + " Quiz: " + QUESTION + " " + PROSE, "synthetic_docs"),
            RowFactory.create("only-gold", GOLD + ".", "synthetic_docs"),
            RowFactory.create("null-text", null, "synthetic_docs")),
        TRAINING);
  }

  @Test
  void removeSpanKeepsPiecesApartLogsHitsAndReconciles() {
    SparkSession spark = SparkTestSession.get();
    Decontamination.Result result =
        Decontamination.apply(
            training(spark),
            questions(spark),
            null,
            DecontaminationSettings.defaults().withMarginChars(0).withMinPieceChars(1));

    Map<String, Row> cleaned =
        result.cleaned().collectAsList().stream()
            .collect(Collectors.toMap(row -> row.getString(0), row -> row));
    assertThat(result.cleaned().schema()).isEqualTo(TRAINING);
    // The cut row's two pieces are two texts with their own keys, never rejoined.
    assertThat(cleaned).containsOnlyKeys("clean", "planted#1", "planted#2", "null-text");
    assertThat(cleaned.get("clean").getString(1)).isEqualTo(PROSE);
    assertThat(cleaned.get("planted#1").getString(1)).isEqualTo(PROSE + " Quiz:");
    assertThat(cleaned.get("planted#2").getString(1)).isEqualTo(PROSE);
    assertThat(cleaned.get("planted#2").getString(2)).isEqualTo("synthetic_docs");

    List<Row> hits = result.hits().collectAsList();
    assertThat(result.hits().schema().fieldNames())
        .containsExactly(Decontamination.HITS_SCHEMA.fieldNames());
    String planted = PROSE + " Quiz: " + QUESTION + " " + PROSE;
    List<Row> plantedHits =
        hits.stream().filter(hit -> hit.getString(0).equals("planted")).toList();
    // 18 question words: six 13-grams.
    assertThat(plantedHits)
        .hasSize(6)
        .allSatisfy(
            hit -> {
              assertThat(hit.getString(1)).isEqualTo("medqa:1");
              assertThat(hit.getString(5)).isEqualTo("cut");
              assertThat(planted.substring(hit.getInt(3), hit.getInt(4)).toLowerCase())
                  .startsWith(hit.getString(2).split(" ")[0]);
            });
    assertThat(plantedHits.get(0).getString(2))
        .isEqualTo("which organ of the body filters the blood and produces urine to remove");
    assertThat(plantedHits.get(0).getInt(3)).isEqualTo(planted.indexOf("Which"));
    // The gold option is 13 words: one hit, and nothing else is left of the row.
    assertThat(hits)
        .filteredOn(hit -> hit.getString(0).equals("only-gold"))
        .singleElement()
        .satisfies(hit -> assertThat(hit.getString(5)).isEqualTo("dropped_no_piece"));

    Decontamination.Counts counts = result.counts();
    // Removed: the question with the spaces around it, and the whole dropped row (gold and ".").
    long removed = (QUESTION.length() + 2) + (GOLD.length() + 1);
    assertThat(counts).isEqualTo(new Decontamination.Counts(4, 2, 1, 2, 0, 0, 1, 0, 7, 0, removed));
    counts.requireReconciled(4, cleaned.size(), hits.size());
    assertThatThrownBy(() -> counts.requireReconciled(4, 3, hits.size()))
        .hasMessageContaining("do not reconcile");
    assertThat(result.index().size()).isPositive();
  }

  @Test
  void dropRowDropsContaminatedRows() {
    SparkSession spark = SparkTestSession.get();
    Decontamination.Result result =
        Decontamination.apply(
            training(spark),
            questions(spark),
            null,
            DecontaminationSettings.defaults().withMode(DecontaminationMode.DROP_ROW));

    assertThat(result.cleaned().select("row_id").as(Encoders.STRING()).collectAsList())
        .containsExactlyInAnyOrder("clean", "null-text");
    assertThat(result.hits().select("action").distinct().as(Encoders.STRING()).collectAsList())
        .containsExactly("dropped_row");
    Decontamination.Counts counts = result.counts();
    assertThat(counts.dropped()).isEqualTo(2);
    assertThat(counts.rowsOut()).isEqualTo(2);
  }

  // The test: a QuALITY article, a question that quotes it and one that does not.
  private static final String QUOTE =
      "the harbor lights went dark one after another until only the old lighthouse still burned";
  private static final String ARTICLE =
      (PROSE + " ").repeat(4)
          + "That night "
          + QUOTE
          + ", and the fishermen waited on the pier. "
          + (PROSE + " ").repeat(4).trim();
  private static final String QUOTING =
      "Why does the author write that \"" + QUOTE + "\" near the end of the story?";
  private static final String NOT_QUOTING =
      "What does the harbor master decide to do after the fishermen refuse to sail at dawn?";

  private static Row source(
      String source, String rowId, String docId, String prompt, String completion) {
    String text = (prompt == null ? "" : prompt) + completion;
    return RowFactory.create(source + "/" + rowId, rowId, source, docId, prompt, completion, text);
  }

  @Test
  void aQuestionThatQuotesItsArticleCutsNothingInItsCorpusOnlyTheOtherCutsReplay() {
    SparkSession spark = SparkTestSession.get();
    Dataset<Row> questions =
        spark.createDataFrame(
            List.of(
                RowFactory.create(
                    "quality:a1-q1",
                    QUOTING,
                    List.of("Fear", "Hope", "A storm", "A wedding"),
                    "A",
                    0,
                    "mcq",
                    "quality:a1"),
                RowFactory.create(
                    "quality:a1-q2",
                    NOT_QUOTING,
                    List.of("Wait", "Sail", "Sell the boats", "Leave"),
                    "A",
                    0,
                    "mcq",
                    "quality:a1")),
            QUESTIONS);
    Dataset<Row> documents =
        spark.createDataFrame(List.of(RowFactory.create("quality:a1", ARTICLE)), DOCUMENTS);
    String rephrase = (PROSE + " ").repeat(3) + "In short, " + QUOTE + ". " + PROSE.repeat(3);
    // Six sentences each side: a clean piece of over 200 characters is left past each margin.
    String replay = (PROSE + " ").repeat(6) + NOT_QUOTING + " " + (PROSE + " ").repeat(6).trim();
    Dataset<Row> rows =
        spark.createDataFrame(
            List.of(
                source("documents", "quality:a1", "quality:a1", null, ARTICLE),
                source("synthetic_docs.rephrase", "s1", "quality:a1", null, rephrase),
                source(
                    "synthetic_qa",
                    "qa1",
                    "quality:a1",
                    "Question: " + NOT_QUOTING + "\nAnswer: ",
                    "They wait."),
                source(
                    "synthetic_qa",
                    "qa2",
                    "quality:a1",
                    "Question: What went dark?\nAnswer: ",
                    QUOTE + "."),
                source("replay", "r1", null, null, replay)),
            SOURCES);

    Decontamination.Result result =
        Decontamination.apply(rows, questions, documents, DecontaminationSettings.defaults());
    Map<String, String> kept =
        result.cleaned().collectAsList().stream()
            .collect(Collectors.toMap(row -> row.getString(0), row -> row.getString(6)));
    Map<String, List<String>> actions =
        result.hits().collectAsList().stream()
            .collect(
                Collectors.groupingBy(
                    hit -> hit.getString(0) + " " + hit.getString(1),
                    Collectors.mapping(hit -> hit.getString(5), Collectors.toList())));

    // The quote is marked once per 13-gram of it (15 words: three).
    assertThat(result.index().sourceQuotes()).isEqualTo(3);
    // The article and its rephrase keep every word; their hits are logged as exempt.
    assertThat(kept.get("documents/quality:a1")).isEqualTo(ARTICLE);
    assertThat(kept.get("synthetic_docs.rephrase/s1")).isEqualTo(rephrase);
    assertThat(actions.get("documents/quality:a1 quality:a1-q1"))
        .hasSize(3)
        .containsOnly("exempt_source_quote");
    assertThat(actions.get("synthetic_docs.rephrase/s1 quality:a1-q1"))
        .containsOnly("exempt_source_quote");
    // A synthetic QA that copies a benchmark question is dropped; one that quotes the article
    // stays.
    assertThat(kept).doesNotContainKey("synthetic_qa/qa1");
    assertThat(actions.get("synthetic_qa/qa1 quality:a1-q2")).containsOnly("dropped_synthetic_qa");
    assertThat(kept).containsKey("synthetic_qa/qa2");
    // Replay: only the question that does not quote the article causes a cut.
    assertThat(kept).doesNotContainKey("replay/r1");
    assertThat(kept).containsKeys("replay/r1#1", "replay/r1#2");
    assertThat(kept.get("replay/r1#1") + kept.get("replay/r1#2")).doesNotContain("harbor master");
    assertThat(actions.get("replay/r1 quality:a1-q2")).containsOnly("cut");
    assertThat(actions).doesNotContainKey("replay/r1 quality:a1-q1");
    assertThat(result.cleaned().filter("row_id = 'replay/r1#1'").first().getString(1))
        .isEqualTo("r1#1");

    Decontamination.Counts counts = result.counts();
    assertThat(counts.syntheticQa()).isEqualTo(1);
    assertThat(counts.shortened()).isEqualTo(1);
    assertThat(counts.exemptHits())
        .isEqualTo(
            actions.values().stream()
                .flatMap(List::stream)
                .filter("exempt_source_quote"::equals)
                .count());
    counts.requireReconciled(5, kept.size(), result.hits().count());
  }

  @Test
  void withExemptEverywhereAQuoteInReplayIsKeptWhileTheOtherQuestionIsCut() {
    SparkSession spark = SparkTestSession.get();
    Dataset<Row> questions =
        spark.createDataFrame(
            List.of(
                RowFactory.create("quality:a1-q1", QUOTING, null, "x", null, "free", "quality:a1"),
                RowFactory.create(
                    "quality:a1-q2", NOT_QUOTING, null, "y", null, "free", "quality:a1")),
            QUESTIONS);
    Dataset<Row> documents =
        spark.createDataFrame(List.of(RowFactory.create("quality:a1", ARTICLE)), DOCUMENTS);
    // A replay corpus that holds the article's passage (as Project Gutenberg would) and the
    // question that does not quote it.
    String replay = ARTICLE + " " + NOT_QUOTING + " " + ARTICLE;
    Dataset<Row> rows =
        spark.createDataFrame(List.of(source("replay", "r1", null, null, replay)), SOURCES);

    Decontamination.Result result =
        Decontamination.apply(
            rows,
            questions,
            documents,
            DecontaminationSettings.defaults()
                .withSourceQuotes(dev.infuse.udfs.decontam.SourceQuotes.EXEMPT_EVERYWHERE));
    List<Row> hits = result.hits().collectAsList();
    assertThat(hits)
        .filteredOn(hit -> hit.getString(1).equals("quality:a1-q1"))
        .hasSize(6)
        .allSatisfy(hit -> assertThat(hit.getString(5)).isEqualTo("exempt_source_quote"));
    assertThat(hits)
        .filteredOn(hit -> hit.getString(1).equals("quality:a1-q2"))
        .isNotEmpty()
        .allSatisfy(hit -> assertThat(hit.getString(5)).isEqualTo("cut"));
    List<String> pieces = result.cleaned().select("text").as(Encoders.STRING()).collectAsList();
    // Both copies of the quote survive; only the other question and its margins are gone.
    assertThat(String.join("\n", pieces)).doesNotContain("harbor master");
    assertThat(pieces).hasSize(2).allSatisfy(piece -> assertThat(piece).contains(QUOTE));
  }

  @Test
  void missingColumnIsNamed() {
    SparkSession spark = SparkTestSession.get();
    Dataset<Row> noText =
        spark.createDataFrame(
            Collections.emptyList(), new StructType().add("row_id", DataTypes.StringType));
    assertThatThrownBy(
            () ->
                Decontamination.apply(
                    noText, questions(spark), null, DecontaminationSettings.defaults()))
        .hasMessageContaining("missing column text, expected a string column text");
  }
}
