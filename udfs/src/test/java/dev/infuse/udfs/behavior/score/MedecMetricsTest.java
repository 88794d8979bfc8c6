package dev.infuse.udfs.behavior.score;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MedecMetricsTest {
  private static final List<MedecReference> REFERENCES =
      List.of(
          new MedecReference("t1", 1, 5, "Culture tests indicate Trichomonas vaginalis."),
          new MedecReference("t2", 0, -1, "NA"),
          new MedecReference("t3", 1, 2, "The patient is given aspirin."),
          new MedecReference("t4", 0, -1, null),
          new MedecReference("t5", 1, 3, "Start metformin."));

  @Test
  void handWorkedExampleWithMinusOneNaAndAMissingPrediction() {
    Map<String, MedecPrediction> predictions =
        Map.of(
            "t1", new MedecPrediction(1, 5, "Culture tests indicate Neisseria vaginalis."),
            "t2", new MedecPrediction(0, -1, "NA"),
            "t3", new MedecPrediction(0, -1, "whatever"),
            "t4", new MedecPrediction(1, 4, "\"Give fluids.\""),
            "other", new MedecPrediction(1, 1, "ignored: no reference"));
    // t5 missing.
    MedecMetrics.MedecResult result = MedecMetrics.compute(REFERENCES, predictions);

    // Flags: t1 (1=1) and t2 (0=0) right; t3, t4 wrong; t5 missing -> 2 / 5.
    assertThat(result.value("error_flag_accuracy")).isEqualTo(0.4);
    // Ids: t1 5=5, t2 -1=-1 right; t3 -1 vs 2, t4 4 vs -1, t5 missing -> 2 / 5.
    assertThat(result.value("error_sentence_accuracy")).isEqualTo(0.4);
    // One scored pair (t1): tokens {Culture, tests, indicate, Neisseria|Trichomonas, vaginalis},
    // overlap 4, P = R = 0.8, F = 2 * 0.64 / (1.6 + 1e-8).
    double f = 2 * 0.64 / (1.6 + 1e-8);
    assertThat(result.value("correction_rouge1_f")).isCloseTo(f, within(1e-12));
    // Composite: (0.8 + 1 for t2 both NA + 0 for t3, t4, t5) / 5.
    assertThat(result.value("correction_rouge1_f_composite")).isCloseTo((f + 1) / 5, within(1e-12));
    assertThat(result.counters())
        .containsEntry("total_texts", 5)
        .containsEntry("reference_na", 2)
        .containsEntry("total_system_texts", 4)
        .containsEntry("system_provided_na", 2)
        .containsEntry("system_provided_correct_na", 1)
        .containsEntry("scored_pairs", 1);
    assertThat(result.notComputed()).contains("BERTSCORE", "BLEURT", "AggregateC");
  }

  @Test
  void aFlagWithoutASentenceMatchesNoIdAndNoPairsGiveNaN() {
    MedecMetrics.MedecResult result =
        MedecMetrics.compute(
            List.of(new MedecReference("t", 1, -1, "NA")),
            Map.of("t", new MedecPrediction(1, null, null)));
    assertThat(result.value("error_flag_accuracy")).isEqualTo(1.0);
    assertThat(result.value("error_sentence_accuracy")).isEqualTo(0.0);
    assertThat(result.value("correction_rouge1_f")).isNaN();
    // Flag 1 with no correction is NA, and so is the reference: both NA scores 1.
    assertThat(result.value("correction_rouge1_f_composite")).isEqualTo(1.0);
    assertThatThrownBy(
            () ->
                MedecMetrics.compute(
                    List.of(
                        new MedecReference("t", 0, -1, null), new MedecReference("t", 0, -1, null)),
                    Map.of()))
        .hasMessageContaining("text id t given twice");
  }

  @Test
  void rougeOneIsCaseSensitiveSplitsAtDotsAndCountsTokensOnce() {
    assertThat(Rouge1.f("Aspirin", "aspirin")).isEqualTo(0.0);
    assertThat(Rouge1.f("the the cat.", "the cat")).isCloseTo(1.0, within(1e-7));
    assertThat(Rouge1.unigrams("Give 5.5 mg.")).containsExactlyInAnyOrder("Give", "5", "mg");
    assertThat(Rouge1.unigrams("a,  b. ")).containsExactlyInAnyOrder("a,", "b", "");
    assertThat(Rouge1.f("...", "x")).isEqualTo(0.0);
    assertThat(MedecMetrics.candidate(new MedecPrediction(1, 2, " \"\"Start   metformin.\" ")))
        .isEqualTo("Start metformin.");
    assertThat(MedecMetrics.candidate(new MedecPrediction(0, 2, "Start metformin.")))
        .isEqualTo("NA");
  }

  @Test
  void theParserReadsTheBehaviourModeReplyFormat() {
    assertThat(
            MedecResponseParser.parse(
                "<proactive> Sentence 5 is wrong: Culture tests indicate Neisseria gonorrhoeae."
                    + " It should read: Culture tests indicate Trichomonas vaginalis.\n\nNote."))
        .isEqualTo(new MedecPrediction(1, 5, "Culture tests indicate Trichomonas vaginalis."));
    assertThat(MedecResponseParser.parse("<restraint> Nothing in the record needs flagging."))
        .isEqualTo(MedecPrediction.noError());
    assertThat(MedecResponseParser.parse("<reactive> Answer: B. Metformin"))
        .isEqualTo(MedecPrediction.noError());
    assertThat(MedecResponseParser.parse("<proactive> Missing: allergy history."))
        .isEqualTo(new MedecPrediction(1, null, "NA"));
    assertThat(MedecResponseParser.parse("  ")).isNull();
  }
}
