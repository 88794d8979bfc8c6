package dev.infuse.jobs.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.infuse.jobs.cli.JobCatalog;
import java.util.List;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;

class ReportConfigTest {
  @Test
  void defaultsReportTheLatestRunsUnderTheWarehouse() {
    ReportConfig report = JobCatalog.configLoader().load().section(ReportConfig.class);
    assertThat(report.output()).isNull();
    assertThat(report.title()).isEqualTo("Infuse evaluation report");
    assertThat(report.scoreRuns()).isEmpty();
    assertThat(report.retrieveRuns()).isEmpty();
    assertThat(
            JobCatalog.configLoader()
                .set("report.score_runs=null")
                .load()
                .section(ReportConfig.class)
                .scoreRuns())
        .isEmpty();
  }

  @Test
  void badOptionsNameTheKeyAndWhatIsExpected() {
    assertThatThrownBy(() -> JobCatalog.configLoader().set("report.title=").load())
        .hasMessageContaining("report.title: got nothing, expected a title");
    assertThatThrownBy(() -> JobCatalog.configLoader().set("report.score_runs=[\"\"]").load())
        .hasMessageContaining("report.score_runs: got an empty id");
    assertThatThrownBy(() -> JobCatalog.configLoader().set("report.output=\" \"").load())
        .hasMessageContaining("report.output: got an empty string");
  }

  @Test
  void theOutputDirectoryIsNamedAfterTheScoreRunOrRelativeToTheWarehouse() {
    assertThat(ReportJob.outputDir("file:/w", null, List.of("score-1"), "report-9"))
        .isEqualTo(new Path("file:/w/reports/score-1"));
    assertThat(ReportJob.outputDir("file:/w", null, List.of(), "report-9"))
        .isEqualTo(new Path("file:/w/reports/report-9"));
    assertThat(ReportJob.outputDir("file:/w", null, List.of("a", "b"), "report-9"))
        .isEqualTo(new Path("file:/w/reports/report-9"));
    assertThat(ReportJob.outputDir("s3://b/w", "out/r", List.of("a"), "x"))
        .isEqualTo(new Path("s3://b/w/out/r"));
    assertThat(ReportJob.outputDir("s3://b/w", "/tmp/r", List.of("a"), "x"))
        .isEqualTo(new Path("/tmp/r"));
    assertThat(ReportJob.outputDir("file:/w", "s3://other/r", List.of("a"), "x"))
        .isEqualTo(new Path("s3://other/r"));
  }
}
