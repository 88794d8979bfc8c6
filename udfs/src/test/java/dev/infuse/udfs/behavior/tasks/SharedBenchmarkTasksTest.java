package dev.infuse.udfs.behavior.tasks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.udfs.RepoPaths;
import dev.infuse.udfs.behavior.BehaviorTask;
import dev.infuse.udfs.behavior.BehaviorType;
import dev.infuse.udfs.ingest.BenchmarkReaders;
import dev.infuse.udfs.ingest.DocumentRecord;
import dev.infuse.udfs.ingest.ItemSink;
import dev.infuse.udfs.ingest.QuestionRecord;
import dev.infuse.udfs.ingest.Rejection;
import dev.infuse.udfs.ingest.SourceFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Reads the real benchmark files through the ingest readers and builds tasks from all four sources;
 * prints the counts per category (the numbers docs/BEHAVIOR.md quotes).
 */
class SharedBenchmarkTasksTest {
  private static final Path BENCHMARKS = RepoPaths.shared().resolve("benchmarks");

  @Test
  void buildsAllThreeBehaviourTypesFromTheSharedBenchmarks() throws IOException {
    TaskBuilder builder = new TaskBuilder(DefaultTaxonomy.load(), 17L, false);
    TaskBuilder conversation = new TaskBuilder(DefaultTaxonomy.load(), 17L, true);
    List<BehaviorTask> tasks = new ArrayList<>();
    Map<String, Integer> notesPerSource = new TreeMap<>();
    for (String[] input :
        new String[][] {
          {"medec", "medec_ms/MEDEC-MS-ValidationSet-with-GroundTruth-and-ErrorType.shared.csv"},
          {"medec", "medec_ms/MEDEC-MS-TestSet-with-GroundTruth-and-ErrorType.shared.csv"},
          {"agentclinic", "agentclinic_medqa/agentclinic_medqa_extended.shared.jsonl"},
          {"aci-bench", "aci_bench/train.csv"},
          {"medqa", "medqa_usmle/phrases_no_exclude_test.shared.jsonl"}
        }) {
      Items items = read(input[0], BENCHMARKS.resolve(input[1]));
      notesPerSource.merge(input[0], items.documents.size() + items.questions.size(), Integer::sum);
      for (DocumentRecord d : items.documents) {
        List<BehaviorTask> built =
            builder.fromDocument(d.corpus(), d.docId(), d.title(), d.text(), d.meta());
        if (d.corpus().equals("medec")) {
          assertThat(built).as(d.docId()).hasSize(1);
          assertThat(
                  conversation.fromDocument(d.corpus(), d.docId(), d.title(), d.text(), d.meta()))
              .as(d.docId() + " as a conversation")
              .singleElement()
              .satisfies(t -> assertThat(t.goldTarget()).isEqualTo(built.get(0).goldTarget()));
        }
        tasks.addAll(built);
      }
      for (QuestionRecord q : items.questions) {
        tasks.addAll(
            builder.fromQuestion(
                q.benchmark(),
                q.questionId(),
                q.question(),
                q.options(),
                q.gold(),
                q.goldIndex(),
                q.meta()));
      }
    }

    Map<String, Long> perCategory =
        tasks.stream()
            .collect(
                Collectors.groupingBy(BehaviorTask::category, TreeMap::new, Collectors.counting()));
    Map<String, Long> perSourceCategory =
        tasks.stream()
            .collect(
                Collectors.groupingBy(
                    t -> t.source() + " " + t.category(), TreeMap::new, Collectors.counting()));
    System.out.println("source rows: " + notesPerSource);
    System.out.println("tasks per category: " + perCategory);
    System.out.println("tasks per source and category: " + perSourceCategory);

    assertThat(tasks.stream().map(BehaviorTask::type).distinct())
        .containsExactlyInAnyOrder(BehaviorType.values());
    assertThat(perCategory.keySet())
        .contains(
            "question_answering",
            "differential_diagnosis",
            "temporal_ordering",
            "error_correction",
            "omission_detection",
            "consistency_check",
            "restraint");
    assertThat(tasks.stream().map(BehaviorTask::taskId).distinct().count())
        .as("task ids are unique")
        .isEqualTo(tasks.size());
  }

  /** What one reader emitted; rejections are allowed (shared files hold known bad rows). */
  static final class Items implements ItemSink {
    final List<DocumentRecord> documents = new ArrayList<>();
    final List<QuestionRecord> questions = new ArrayList<>();
    final List<Rejection> rejections = new ArrayList<>();

    @Override
    public void document(DocumentRecord document) {
      documents.add(document);
    }

    @Override
    public void question(QuestionRecord question) {
      questions.add(question);
    }

    @Override
    public void reject(Rejection rejection) {
      rejections.add(rejection);
    }
  }

  static Items read(String format, Path path) throws IOException {
    Items items = new Items();
    BenchmarkReaders.forFormat(format)
        .read(new SourceFile(path.toString(), Files.readAllBytes(path)), items);
    return items;
  }

  static <T> Map<String, T> byId(List<T> items, Function<T, String> id) {
    return items.stream().collect(Collectors.toMap(id, t -> t, (a, b) -> a, TreeMap::new));
  }
}
