package dev.infuse.udfs.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class BenchmarkReadersTest {
  @Test
  void registersEveryFormatUnderItsOwnName() {
    assertThat(BenchmarkReaders.formats())
        .containsExactly(
            "quality",
            "financebench",
            "gsm8k",
            "anli",
            "medqa",
            "longhealth",
            "medec",
            "aci-bench",
            "agentclinic");
    BenchmarkReaders.formats()
        .forEach(name -> assertThat(BenchmarkReaders.forFormat(name).format()).isEqualTo(name));
  }

  @Test
  void anUnknownNameSuggestsTheNearestFormat() {
    assertThatThrownBy(() -> BenchmarkReaders.forFormat("qualty"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("did you mean 'quality'");
  }

  @Test
  void eachFormatAcceptsItsOwnFilesAndNotItsCompanions() {
    assertThat(BenchmarkReaders.forFormat("anli").accepts("ANLI_analysis_r1_dev.csv")).isTrue();
    assertThat(BenchmarkReaders.forFormat("anli").accepts("LICENSE")).isFalse();
    assertThat(BenchmarkReaders.forFormat("medec").accepts("README.md")).isFalse();
    assertThat(BenchmarkReaders.forFormat("longhealth").accepts("benchmark_v5.json")).isTrue();
    assertThat(BenchmarkReaders.forFormat("gsm8k").accepts("train.jsonl")).isTrue();
    assertThat(BenchmarkReaders.forFormat("gsm8k").accepts("LICENSE")).isFalse();
    assertThat(BenchmarkReaders.forFormat("agentclinic").accepts("LICENSE.txt")).isFalse();
  }
}
