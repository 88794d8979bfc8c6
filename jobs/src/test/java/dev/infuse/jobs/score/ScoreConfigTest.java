package dev.infuse.jobs.score;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.infuse.jobs.cli.JobCatalog;
import dev.infuse.jobs.config.ConfigException;
import dev.infuse.jobs.config.InfuseConfig;
import dev.infuse.udfs.answer.Setting;
import dev.infuse.udfs.llm.LlmBackend;
import org.junit.jupiter.api.Test;

class ScoreConfigTest {
  @Test
  void defaultsAreDocumentedValuesAndTheSeedFallsBackToTheRunSeed() {
    InfuseConfig config = JobCatalog.configLoader().set("run.seed=9").load();
    ScoreConfig score = config.section(ScoreConfig.class);
    assertThat(score.bootstrapResamples()).isEqualTo(1000);
    assertThat(score.confidence()).isEqualTo(0.95);
    assertThat(score.numericTolerance()).isEqualTo(0.01);
    assertThat(score.seedOr(config.run().seed())).isEqualTo(9);
    assertThat(
            JobCatalog.configLoader()
                .set("score.seed=3")
                .load()
                .section(ScoreConfig.class)
                .seedOr(9))
        .isEqualTo(3);
    assertThat(score.judgeWith(LlmBackend.EXTRACTIVE)).isFalse();
    assertThat(score.judgeWith(LlmBackend.OPENAI)).isTrue();
    assertThat(score.compare()).isEmpty();
    assertThat(score.scalingBaselineSetting()).isEqualTo(Setting.RAG);
  }

  @Test
  void badOptionsNameTheKeyAndTheExpectedValue() {
    assertThatThrownBy(
            () ->
                JobCatalog.configLoader()
                    .set("score.confidence=1.5")
                    .set("score.judge=maybe")
                    .set("score.compare=[[a, b], [a]]")
                    .set("score.bootstrap_resamples=10")
                    .set("score.numeric_tolerance=-1")
                    .load())
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(
            "score.confidence: got 1.5, expected a fraction strictly between 0 and 1")
        .hasMessageContaining("score.judge: got maybe, expected auto, on or off")
        .hasMessageContaining(
            "score.compare: got pair [a], expected two different run ids [a, b] in each pair")
        .hasMessageContaining("score.bootstrap_resamples: got 10, expected an integer >= 100")
        .hasMessageContaining(
            "score.numeric_tolerance: got -1.0, expected a relative tolerance in [0, 1)");
  }

  @Test
  void aFlatPairIsNamedAsSuch() {
    // [a, b] was the one-pair form; now every comparison is a pair of its own.
    assertThatThrownBy(() -> JobCatalog.configLoader().set("score.compare=[a, b]").load())
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(
            "score.compare: got [\"a\",\"b\"] with element 'a', expected a list of lists, e.g. [[a, b]]");
    assertThat(
            JobCatalog.configLoader()
                .set("score.compare=[[a, b], [b, c]]")
                .load()
                .section(ScoreConfig.class)
                .compare())
        .containsExactly(java.util.List.of("a", "b"), java.util.List.of("b", "c"));
  }
}
