package dev.infuse.udfs.behavior.score;

import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.udfs.RepoPaths;
import dev.infuse.udfs.generate.GenerationTask;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Test;

/**
 * The model-free clinician on the shared MEDEC-MS validation texts, scored with MEDEC's metrics:
 * the whole path runs on real notes, every reply parses, and the checker stays honest (it flags
 * only what its value table rejects, so it misses MEDEC's medical errors).
 */
class MedecSharedTest {
  private static final Path FILE =
      RepoPaths.shared()
          .resolve(
              "benchmarks/medec_ms/MEDEC-MS-ValidationSet-with-GroundTruth-and-ErrorType.shared.csv");

  @Test
  void theRuleClinicianRunsOnEverySharedNoteAndIsScoredWithMedecsMetrics() throws IOException {
    List<MedecReference> references = new ArrayList<>();
    Map<String, MedecPrediction> predictions = new LinkedHashMap<>();
    List<String> flagged = new ArrayList<>();
    try (Reader reader = Files.newBufferedReader(FILE, StandardCharsets.UTF_8)) {
      for (CSVRecord row :
          CSVFormat.DEFAULT.builder().setHeader().setSkipHeaderRecord(true).build().parse(reader)) {
        String id = row.get("Text ID");
        String corrected = row.get("Corrected Sentence");
        references.add(
            new MedecReference(
                id,
                Integer.parseInt(row.get("Error Flag").strip()),
                Integer.parseInt(row.get("Error Sentence ID").strip()),
                corrected.isBlank() ? null : corrected.replace("\r", "").strip()));
        Map<String, String> task = new LinkedHashMap<>();
        task.put(GenerationTask.KIND, GenerationTask.BEHAVE);
        task.put(GenerationTask.CONTEXT, "note: " + row.get("Sentences").replace("\r", ""));
        task.put(GenerationTask.QUERY, "");
        String reply = ExtractiveClinician.respond(task, new SplittableRandom(0));
        assertThat(reply).contains("no model was run");
        assertThat(new BehaviorTokenClassifier().classify(reply).present()).as(reply).isTrue();
        MedecPrediction prediction = MedecResponseParser.parse(reply);
        assertThat(prediction).as(reply).isNotNull();
        predictions.put(id, prediction);
        if (prediction.errorFlag() == 1) {
          flagged.add(id + ": " + reply.lines().findFirst().orElse(""));
        }
      }
    }
    MedecMetrics.MedecResult result = MedecMetrics.compute(references, predictions);
    assertThat(references).hasSize(222);
    assertThat(result.counters())
        .containsEntry("total_texts", 222)
        .containsEntry("reference_na", 100);
    // The only flags: a pulse written 80/min right after a procedure and 102/min later, in one
    // vignette's error and correct versions. A change over time read as a conflict, not MEDEC's
    // error (sentence 22): the rule checker's limit, shown rather than hidden.
    assertThat(flagged)
        .containsExactly(
            "ms-val-240: <proactive> Conflict: pulse: 80 vs 102.",
            "ms-val-241: <proactive> Conflict: pulse: 80 vs 102.");
    // Flags: the 99 other correct texts (0 = 0) plus ms-val-240 (1 = 1) -> 100 / 222.
    assertThat(result.value("error_flag_accuracy")).isEqualTo(100.0 / 222);
    // Ids: the 99 correct texts' -1; ms-val-240 names no sentence -> 99 / 222.
    assertThat(result.value("error_sentence_accuracy")).isEqualTo(99.0 / 222);
    // No correction is ever offered: no ROUGE pair; both-NA on the 100 correct texts.
    assertThat(result.counters()).containsEntry("scored_pairs", 0);
    assertThat(result.value("correction_rouge1_f")).isNaN();
    assertThat(result.value("correction_rouge1_f_composite")).isEqualTo(100.0 / 222);
  }
}
