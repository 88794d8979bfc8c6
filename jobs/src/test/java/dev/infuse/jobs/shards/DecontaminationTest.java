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
          .add("answer_type", DataTypes.StringType);

  private static final StructType TRAINING =
      new StructType()
          .add("row_id", DataTypes.StringType)
          .add("text", DataTypes.StringType)
          .add("source", DataTypes.StringType);

  private static Dataset<Row> questions(SparkSession spark) {
    return spark.createDataFrame(
        List.of(
            RowFactory.create(
                "medqa:1",
                QUESTION,
                Arrays.asList("The liver", GOLD, "The lungs", "The heart"),
                "B",
                1,
                "mcq"),
            RowFactory.create(
                "gsm8k:2",
                "How many legs do three spiders and two ants have together?",
                null,
                "36",
                null,
                "numeric")),
        QUESTIONS);
  }

  private static Dataset<Row> training(SparkSession spark) {
    return spark.createDataFrame(
        List.of(
            RowFactory.create("clean", PROSE, "synthetic_docs"),
            RowFactory.create(
                "planted", PROSE + " Quiz: " + QUESTION + " " + PROSE, "synthetic_qa"),
            RowFactory.create("only-gold", GOLD + ".", "synthetic_qa"),
            RowFactory.create("null-text", null, "synthetic_docs")),
        TRAINING);
  }

  @Test
  void removeSpanCleansRowsLogsHitsAndReconciles() {
    SparkSession spark = SparkTestSession.get();
    Decontamination.Result result =
        Decontamination.apply(
            training(spark),
            questions(spark),
            DecontaminationSettings.defaults().withMarginChars(0));

    Map<String, Row> cleaned =
        result.cleaned().collectAsList().stream()
            .collect(Collectors.toMap(row -> row.getString(0), row -> row));
    assertThat(result.cleaned().schema()).isEqualTo(TRAINING);
    assertThat(cleaned).containsOnlyKeys("clean", "planted", "null-text");
    assertThat(cleaned.get("clean").getString(1)).isEqualTo(PROSE);
    assertThat(cleaned.get("planted").getString(1)).isEqualTo(PROSE + " Quiz: ? " + PROSE);
    assertThat(cleaned.get("planted").getString(2)).isEqualTo("synthetic_qa");

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
              assertThat(hit.getString(5)).isEqualTo("remove_span");
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
        .satisfies(hit -> assertThat(hit.getString(5)).isEqualTo("drop_row_emptied"));

    Decontamination.Counts counts = result.counts();
    // Removed: the question less its "?" (not a word), and the whole dropped row (gold and ".").
    long removed = (QUESTION.length() - 1) + (GOLD.length() + 1);
    assertThat(counts).isEqualTo(new Decontamination.Counts(4, 2, 1, 0, 1, 7, removed));
    counts.requireReconciled(4, cleaned.size(), hits.size());
    assertThatThrownBy(() -> counts.requireReconciled(4, 4, hits.size()))
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
            DecontaminationSettings.defaults().withMode(DecontaminationMode.DROP_ROW));

    assertThat(
            result
                .cleaned()
                .select("row_id")
                .as(org.apache.spark.sql.Encoders.STRING())
                .collectAsList())
        .containsExactlyInAnyOrder("clean", "null-text");
    assertThat(
            result
                .hits()
                .select("action")
                .distinct()
                .as(org.apache.spark.sql.Encoders.STRING())
                .collectAsList())
        .containsExactly("drop_row");
    Decontamination.Counts counts = result.counts();
    assertThat(counts.dropped()).isEqualTo(2);
    assertThat(counts.rowsOut()).isEqualTo(2);
  }

  @Test
  void missingColumnIsNamed() {
    SparkSession spark = SparkTestSession.get();
    Dataset<Row> noText =
        spark.createDataFrame(
            Collections.emptyList(), new StructType().add("row_id", DataTypes.StringType));
    assertThatThrownBy(
            () ->
                Decontamination.apply(noText, questions(spark), DecontaminationSettings.defaults()))
        .hasMessageContaining("missing column text, expected a string column text");
  }
}
