package dev.infuse.udfs.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SplitNamesTest {
  @Test
  void readsTheSplitFromWholeNameTokens() {
    assertThat(SplitNames.fromFileName("quality_dev_sample.jsonl", "x")).isEqualTo("dev");
    assertThat(SplitNames.fromFileName("QuALITY.v1.0.1.htmlstripped.train", "x"))
        .isEqualTo("train");
    assertThat(
            SplitNames.fromFileName(
                "MEDEC-MS-ValidationSet-with-GroundTruth-and-ErrorType.shared.csv", "x"))
        .isEqualTo("dev");
    assertThat(
            SplitNames.fromFileName(
                "MEDEC-MS-TestSet-with-GroundTruth-and-ErrorType.shared.csv", "x"))
        .isEqualTo("test");
    assertThat(SplitNames.fromFileName("clinicalnlp_taskB_test1.csv", "x")).isEqualTo("test");
    assertThat(SplitNames.fromFileName("latest.jsonl", "train")).isEqualTo("train");
    assertThat(SplitNames.fromFileName("agentclinic_medqa_extended.shared.jsonl", "none"))
        .isEqualTo("none");
  }

  @Test
  void readsTheAnliRound() {
    assertThat(SplitNames.round("ANLI_analysis_r2_dev.csv")).contains("r2");
    assertThat(SplitNames.round("anli_dev.csv")).isEmpty();
  }
}
