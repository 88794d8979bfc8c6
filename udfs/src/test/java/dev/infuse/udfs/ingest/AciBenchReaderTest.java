package dev.infuse.udfs.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AciBenchReaderTest {
  private final AciBenchReader reader = new AciBenchReader();

  @Test
  void readsTheTrainSplitAsDialogueAndNotePairs() {
    CollectingSink sink = CollectingSink.read(reader, SharedBenchmarks.file("aci_bench/train.csv"));

    assertThat(sink.rejections).isEmpty();
    assertThat(sink.documents).hasSize(134);
    assertThat(sink.distinctDocIds()).hasSize(134);
    DocumentRecord dialogue = sink.documents.get(0);
    DocumentRecord note = sink.documents.get(1);
    assertThat(dialogue.docId()).isEqualTo("aci-bench:D2N001:dialogue");
    assertThat(dialogue.title()).isEqualTo("D2N001 dialogue");
    assertThat(dialogue.text()).startsWith("[doctor] hi , martha . how are you ?");
    assertThat(note.docId()).isEqualTo("aci-bench:D2N001:note");
    assertThat(note.text()).startsWith("CHIEF COMPLAINT");
    assertThat(note.meta())
        .containsEntry("dataset", "virtassist")
        .containsEntry("encounter_id", "D2N001")
        .containsEntry("kind", "note")
        .containsEntry("split", "train");
    assertThat(sink.documents).filteredOn(d -> d.meta().get("dataset").equals("aci")).hasSize(70);
  }

  @Test
  void skipsTheMetadataFile() {
    assertThat(reader.accepts("train.csv")).isTrue();
    assertThat(reader.accepts("train_metadata.csv")).isFalse();
  }
}
