package dev.infuse.tests;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.jobs.io.Warehouse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/**
 * A QuALITY file in the official v1.0.1 htmlstripped shape, generated here and never seen by the
 * readers' own tests: every article is written by two writers (two lines), ids are strings, and
 * questions carry validation, speed validation and the {@code difficult} flag.
 */
class QualityOfficialFormatTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final SparkSession spark = SparkTestSession.get();

  @Test
  void everyArticleAndQuestionIsAccountedFor() throws IOException {
    List<String> lines = new ArrayList<>();
    int questions = 0;
    for (int article = 0; article < 3; article++) {
      for (int writer = 0; writer < 2; writer++) {
        int count = 3 + article + writer;
        lines.add(JSON.writeValueAsString(record(article, writer, count)));
        questions += count;
      }
    }
    Path input =
        SparkTestSession.tempDir("quality-official").resolve("QuALITY.v1.0.1.htmlstripped.dev");
    Files.write(input, lines);

    String warehouse = SparkTestSession.tempDir("wh").toString();
    CliResult result =
        SparkTestSession.cli(
            "ingest",
            "--format",
            "quality",
            "--input",
            input.getParent().toString(),
            "--warehouse",
            warehouse);
    assertThat(result.code()).as(result.toString()).isZero();

    Warehouse w = new Warehouse(spark, warehouse);
    assertThat(w.read("documents").count()).isEqualTo(3);
    assertThat(w.read("questions").count()).isEqualTo(questions);
    assertThat(w.read("quarantine").count()).isZero();
    Row run = w.read("runs").head();
    assertThat(run.<Long>getAs("input_count")).isEqualTo(6L + questions);
    assertThat(run.<Long>getAs("output_count")).isEqualTo(6L + questions);
    assertThat(
            run.<scala.collection.Map<String, Long>>getAs("counts")
                .get("documents.collapsed")
                .get())
        .isEqualTo(3L);

    Row question = w.read("questions").filter("question_id = 'quality:20001_WRITER01_2'").head();
    assertThat(question.<String>getAs("doc_id")).isEqualTo("quality:20001");
    assertThat(question.<String>getAs("split")).isEqualTo("dev");
    assertThat(question.<String>getAs("gold")).isEqualTo("C");
    assertThat(question.<Integer>getAs("gold_index")).isEqualTo(2);
    assertThat(question.<scala.collection.Seq<String>>getAs("subsets").contains("difficult"))
        .isTrue();
    assertThat(w.read("questions").filter("array_contains(subsets, 'difficult')").count())
        .isEqualTo(w.read("questions").filter("question_id RLIKE '_[02468]$'").count());
    Row document = w.read("documents").filter("doc_id = 'quality:20001'").head();
    assertThat(document.<String>getAs("license")).isEqualTo("Public domain in the USA.");
    assertThat(document.<String>getAs("source")).isEqualTo("Gutenberg");
  }

  private static ObjectNode record(int article, int writer, int questionCount) {
    String articleId = String.valueOf(20000 + article);
    String setId = articleId + "_WRITER0" + writer;
    ObjectNode record =
        JSON.createObjectNode()
            .put("article_id", articleId)
            .put("set_unique_id", setId)
            .put("batch_num", "22")
            .put("writer_id", "100" + writer)
            .put("source", "Gutenberg")
            .put("title", "Story " + article)
            .put("author", "Writer, A.")
            .put("topic", "Science fiction")
            .put("url", "http://www.gutenberg.org/ebooks/" + articleId)
            .put("year", "1953")
            .put("license", "Public domain in the USA.")
            .put(
                "article",
                "STORY "
                    + article
                    + "\n\n By A. WRITER\n\n The ship came down at dawn. Nobody spoke.\n\n"
                    + "It was the "
                    + article
                    + "th landing. The captain counted the crates twice.\n");
    ArrayNode list = record.putArray("questions");
    for (int q = 1; q <= questionCount; q++) {
      ObjectNode question =
          list.addObject()
              .put("question", "Question " + q + " about story " + article + "?")
              .put("question_unique_id", setId + "_" + q)
              .put("gold_label", 1 + (q % 4))
              .put("writer_label", 1 + (q % 4))
              .put("difficult", q % 2 == 0 ? 1 : 0);
      ArrayNode options = question.putArray("options");
      for (int o = 0; o < 4; o++) {
        options.add("Option " + o + " of question " + q);
      }
      question
          .putArray("validation")
          .addObject()
          .put("untimed_annotator_id", "0007")
          .put("untimed_answer", 1 + (q % 4))
          .put("untimed_eval1_answerability", 1)
          .put("untimed_eval2_context", 2)
          .put("untimed_eval3_distractor", 1);
      question
          .putArray("speed_validation")
          .addObject()
          .put("speed_annotator_id", "0012")
          .put("speed_answer", 1);
    }
    return record;
  }
}
