package dev.infuse.udfs.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class MedecReaderTest {
  private final MedecReader reader = new MedecReader();

  @Test
  void readsTheValidationShare() {
    CollectingSink sink =
        CollectingSink.read(
            reader,
            SharedBenchmarks.file(
                "medec_ms/MEDEC-MS-ValidationSet-with-GroundTruth-and-ErrorType.shared.csv"));

    assertThat(sink.rejections).isEmpty();
    assertThat(sink.documents).hasSize(222);
    assertThat(sink.questions).isEmpty();
    assertThat(sink.documents).filteredOn(d -> d.meta().get("error_flag").equals("1")).hasSize(122);
    DocumentRecord first = sink.documents.get(0);
    assertThat(first.docId()).isEqualTo("medec:ms-val-0");
    assertThat(first.text()).startsWith("A 24-year-old woman comes to the emergency department");
    assertThat(first.license()).isEqualTo("CC BY 4.0");
    assertThat(first.location()).isEqualTo("record 1 (line 2)");
    assertThat(first.meta())
        .containsEntry("split", "dev")
        .containsEntry("error_type", "causalOrganism")
        .containsEntry("error_sentence_id", "5")
        .containsEntry("corrected_sentence", "Culture tests indicate Trichomonas vaginalis.")
        .containsKeys("sentences", "error_sentence", "corrected_text");
  }

  @Test
  void readsTheTestShareWithCrlfInsideFields() {
    CollectingSink sink =
        CollectingSink.read(
            reader,
            SharedBenchmarks.file(
                "medec_ms/MEDEC-MS-TestSet-with-GroundTruth-and-ErrorType.shared.csv"));

    assertThat(sink.rejections).isEmpty();
    assertThat(sink.documents).hasSize(177);
    assertThat(sink.documents).filteredOn(d -> d.meta().get("error_flag").equals("1")).hasSize(92);
    assertThat(sink.documents)
        .allSatisfy(
            d -> {
              assertThat(d.meta()).containsEntry("split", "test");
              assertThat(d.text()).doesNotContain("\r");
              assertThat(d.meta().get("sentences")).doesNotContain("\r");
            });
  }

  /** The official test CSV pads its 597 notes with 328 all-empty rows; they are blanks, not bad. */
  @Test
  void allEmptyRowsAreBlanksNeitherItemsNorRejections() {
    String csv =
        "Text ID,Text,Sentences,Error Flag,Error Type,Error Sentence ID,Error Sentence,"
            + "Corrected Sentence,Corrected Text\n"
            + "ms-test-0,A note.,0 A note.,0,,-1,NA,NA,NA\n"
            + ",,,,,,,,\n"
            + ",,,,,,,,\r\n"
            + "ms-test-1,,0 x,0,,-1,NA,NA,NA\n"
            + ",,,,,,,,\n";
    CollectingSink sink =
        CollectingSink.read(
            reader, new SourceFile("medec/test.csv", csv.getBytes(StandardCharsets.UTF_8)));

    assertThat(sink.documents).hasSize(1);
    assertThat(sink.blanks)
        .containsExactly("record 2 (line 3)", "record 3 (line 4)", "record 5 (line 6)");
    assertThat(sink.rejections)
        .singleElement()
        .satisfies(
            r -> assertThat(r.reason()).isEqualTo("Text: got an empty value, expected text"));
  }
}
