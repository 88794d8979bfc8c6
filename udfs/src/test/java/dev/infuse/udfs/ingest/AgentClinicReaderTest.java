package dev.infuse.udfs.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class AgentClinicReaderTest {
  private final AgentClinicReader reader = new AgentClinicReader();

  @Test
  void readsTheSharedCases() {
    CollectingSink sink =
        CollectingSink.read(
            reader,
            SharedBenchmarks.file("agentclinic_medqa/agentclinic_medqa_extended.shared.jsonl"));

    assertThat(sink.rejections).isEmpty();
    assertThat(sink.documents).hasSize(60);
    assertThat(sink.distinctDocIds()).hasSize(60);
    DocumentRecord first = sink.documents.get(0);
    assertThat(first.docId()).matches("agentclinic:[0-9a-f]{16}");
    assertThat(first.title())
        .startsWith(
            "Evaluate and diagnose the patient presenting with episodes of unresponsiveness");
    assertThat(first.license()).isEqualTo("MIT");
    assertThat(first.text())
        .contains("OSCE Examination\n  Objective for Doctor: Evaluate")
        .contains("\n    Demographics: 7-year-old boy\n")
        .contains("\n      Secondary Symptoms\n        - ");
    assertThat(first.meta()).containsKeys("correct_diagnosis", "osce_json");
    assertThat(first.meta().get("osce_json")).startsWith("{\"Objective_for_Doctor\":");
  }

  @Test
  void sameCaseWithOtherKeyOrderAndSpacingGetsTheSameKey() {
    String lines =
        "{\"OSCE_Examination\": {\"Correct_Diagnosis\": \"Flu\", \"Test_Results\": {\"PCR\": \"positive\"}}}\n"
            + "{\"OSCE_Examination\":{\"Test_Results\":{\"PCR\":\"positive\"},\"Correct_Diagnosis\":\"Flu\"}}\n"
            + "{\"Case\": {}}\n";
    CollectingSink sink =
        CollectingSink.read(
            reader, new SourceFile("a/cases.jsonl", lines.getBytes(StandardCharsets.UTF_8)));

    assertThat(sink.documents).hasSize(2);
    assertThat(sink.documents.get(0).docId()).isEqualTo(sink.documents.get(1).docId());
    assertThat(sink.documents.get(0).title()).isEqualTo("Flu");
    assertThat(sink.rejections)
        .singleElement()
        .extracting(Rejection::reason)
        .isEqualTo("missing field 'OSCE_Examination'");
  }
}
