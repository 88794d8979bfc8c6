package dev.infuse.jobs.report;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ReportFormatTest {
  @Test
  void escapesEveryCharacterThatCouldOpenMarkupOrEndAnAttribute() {
    assertThat(ReportFormat.html("<script>alert(\"x\")</script>&'co'"))
        .isEqualTo("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;co&#39;");
    assertThat(ReportFormat.html("&amp;"))
        .as("escaping twice is visible, never undone")
        .isEqualTo("&amp;amp;");
    assertThat(ReportFormat.html(null)).isEmpty();
    assertThat(ReportFormat.html("plain é ü 中")).isEqualTo("plain é ü 中");
  }

  @Test
  void formatsNumbersForTables() {
    assertThat(ReportFormat.number(0.5625)).isEqualTo("0.5625");
    assertThat(ReportFormat.number(-0.03125)).isEqualTo("-0.0313");
    assertThat(ReportFormat.number(null)).isEqualTo(ReportFormat.NONE);
    assertThat(ReportFormat.number(Double.NaN)).isEqualTo(ReportFormat.NONE);
    assertThat(ReportFormat.pValue(0.00004)).isEqualTo("< 0.0001");
    assertThat(ReportFormat.pValue(0.218)).isEqualTo("0.2180");
    assertThat(ReportFormat.tokens(1_000_000L)).isEqualTo("1M");
    assertThat(ReportFormat.tokens(250L)).isEqualTo("250");
    assertThat(ReportFormat.compact(1.2346e9)).isEqualTo("1.235B");
    assertThat(ReportFormat.compact(12_500.0)).isEqualTo("12.5k");
  }
}
