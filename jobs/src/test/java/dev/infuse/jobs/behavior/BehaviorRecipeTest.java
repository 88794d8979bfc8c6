package dev.infuse.jobs.behavior;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.udfs.llm.FakeOpenAiServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The behaviour recipe end to end on the clinical samples shipped for the demo (samples/clinical):
 * build the tasks, answer them through an OpenAI-compatible loopback server that always shows one
 * behaviour, score, mine the Hard subset from a panel of two such runs, and write SFT data. Every
 * expected number is worked out from the tasks' gold labels.
 */
class BehaviorRecipeTest {
  private static final SparkSession SPARK = SparkTestSession.get();
  private static String warehouse;

  @BeforeAll
  static void ingestTheClinicalSamples() {
    warehouse = ClinicalWarehouse.get();
  }

  @Test
  void buildsAnswersScoresMinesAndExportsTheBehaviourBenchmark() throws Exception {
    Warehouse w = new Warehouse(SPARK, warehouse);
    CliResult build = SparkTestSession.cli("build-behavior-tasks", "--warehouse", warehouse);
    assertThat(build.code()).as(build.toString()).isZero();
    // 8 MEDEC notes, 4 AgentClinic cases, 2 ACI-BENCH encounters (dialogue and note), 6 MedQA.
    assertThat(build.out())
        .contains("22 source record(s)")
        .contains("38 task(s) built under infuse-behavior@1, 0 record(s) quarantined")
        .contains("2 aci-bench record(s) gave no task");
    Map<String, Long> perCategory = new HashMap<>();
    for (Row row : w.read("behavior_tasks").groupBy("category").count().collectAsList()) {
      perCategory.put(row.getString(0), row.getLong(1));
    }
    assertThat(perCategory)
        .containsEntry("question_answering", 6L)
        .containsEntry("differential_diagnosis", 4L)
        .containsEntry("error_correction", 10L)
        .containsEntry("omission_detection", 4L)
        .containsEntry("consistency_check", 4L)
        .containsEntry("restraint", 10L);
    // Every MEDEC note gives exactly one task: its error, or restraint.
    assertThat(w.read("behavior_tasks").filter("source = 'medec'").count()).isEqualTo(8);
    assertThat(
            w.read("behavior_tasks")
                .filter("source = 'medec' AND category = 'error_correction'")
                .count())
        .isEqualTo(4);
    long tasksVersion = w.version("behavior_tasks");
    CliResult rebuild = SparkTestSession.cli("build-behavior-tasks", "--warehouse", warehouse);
    assertThat(rebuild.code()).isZero();
    assertThat(w.version("behavior_tasks"))
        .as("the same seed rebuilds the same tasks")
        .isEqualTo(tasksVersion);

    String restraintRun;
    String flaggingRun;
    try (FakeOpenAiServer restrained = new FakeOpenAiServer();
        FakeOpenAiServer flagging = new FakeOpenAiServer()) {
      restrained.setResponder(request -> "<restraint> Nothing in the record needs flagging.");
      // One task's call fails: it goes to quarantine, and a rerun answers it.
      restrained
          .faults()
          .failWhen(r -> r.toString().contains("Clopidogrel"), FakeOpenAiServer.Fault.BAD_REQUEST);
      CliResult first = answer(restrained);
      assertThat(first.code()).as(first.toString()).isZero();
      assertThat(first.out()).contains("38 task(s) of behavior_tasks: 37 answered, 1 quarantined");
      restrained.faults().clear();
      CliResult again = answer(restrained);
      assertThat(again.out())
          .contains("38 answered, 0 quarantined")
          .contains("37 cached, 1 called");
      restraintRun = runId(again);
      // No behavioural token: the rule-based classifier reads the flag.
      flagging.setResponder(
          request -> "Sentence 3 is wrong: the dose. It should read: a lower dose.");
      CliResult second = answer(flagging);
      assertThat(second.code()).as(second.toString()).isZero();
      flaggingRun = runId(second);
    }
    Row restraintRow =
        w.read("behavior_predictions")
            .filter("run_id = '" + restraintRun + "'")
            .limit(1)
            .collectAsList()
            .get(0);
    assertThat(restraintRow.<String>getAs("predicted_behavior")).isEqualTo("restraint");
    assertThat(restraintRow.<String>getAs("classified_by")).isEqualTo("token@1");
    assertThat(
            w.read("behavior_predictions")
                .filter(
                    "run_id = '"
                        + flaggingRun
                        + "' AND classified_by = 'rule@1' AND predicted_behavior = 'proactive'")
                .count())
        .isEqualTo(38);

    CliResult score =
        SparkTestSession.cli(
            "score", "--warehouse", warehouse, "--behavior-runs", restraintRun + "," + flaggingRun);
    assertThat(score.code()).as(score.toString()).isZero();
    Map<String, Double> metrics = new HashMap<>();
    for (Row row :
        w.read("behavior_scores").filter("run_id = '" + restraintRun + "'").collectAsList()) {
      metrics.put(
          row.<String>getAs("subset") + "/" + row.<String>getAs("metric"),
          row.<Double>getAs("value"));
    }
    // Gold: 10 reactive, 18 proactive, 10 restraint; always restraint: F1(restraint) =
    // 2 * (10/38) * 1 / (10/38 + 1) = 20/48, F1 of the other two 0, macro over three labels.
    assertThat(metrics.get("types/macro_f1")).isCloseTo(20.0 / 48 / 3, within(1e-9));
    assertThat(metrics.get("restraint_tasks/over_proactivity")).isEqualTo(0.0);
    assertThat(metrics.get("proactive_tasks/under_proactivity")).isEqualTo(1.0);
    assertThat(metrics.get("gold:proactive>predicted:restraint/confusion_count")).isEqualTo(18.0);
    // MEDEC: 4 notes with an error, 4 without; "no error" everywhere is right on the 4 correct
    // ones, for the flag, the sentence (-1) and the composite (both NA scores 1).
    assertThat(metrics.get("medec/medec_error_flag_accuracy")).isEqualTo(0.5);
    assertThat(metrics.get("medec/medec_error_sentence_accuracy")).isEqualTo(0.5);
    assertThat(metrics.get("medec/medec_correction_rouge1_f_composite")).isEqualTo(0.5);
    // ROUGE over no scored pair is undefined: not written. Nor is the precision of a label the
    // run never predicted.
    assertThat(metrics).doesNotContainKey("medec/medec_correction_rouge1_f");
    assertThat(metrics).doesNotContainKey("type=proactive/precision");
    assertThat(metrics.get("type=restraint/precision")).isCloseTo(10.0 / 38, within(1e-9));

    CliResult mine =
        SparkTestSession.cli(
            "mine-hard",
            "--warehouse",
            warehouse,
            "--runs",
            restraintRun + "," + flaggingRun,
            "--min-failures",
            "2");
    assertThat(mine.code()).as(mine.toString()).isZero();
    // Hard: the tasks both runs fail, a wrong behaviour or a flag naming the wrong thing.
    Set<String> expected = new TreeSet<>(failedByBoth(w, restraintRun, flaggingRun));
    Set<String> hard =
        new TreeSet<>(
            w.read("behavior_tasks_hard")
                .select("task_id")
                .as(org.apache.spark.sql.Encoders.STRING())
                .collectAsList());
    assertThat(hard).isEqualTo(expected).isNotEmpty();
    Row hardRow = w.read("behavior_tasks_hard").limit(1).collectAsList().get(0);
    assertThat(hardRow.<String>getAs("rule")).isEqualTo("2 of 2 runs fail");
    assertThat(hardRow.<Integer>getAs("failures")).isEqualTo(2);
    assertThat(
            w.read("behavior_scores")
                .filter("subset = 'hard/types' AND metric = 'macro_f1'")
                .count())
        .isEqualTo(2);

    CliResult sft = SparkTestSession.cli("sft-data", "--warehouse", warehouse);
    assertThat(sft.code()).as(sft.toString()).isZero();
    Path sftDir = Path.of(warehouse, "sft", "behavior");
    List<String> train = Files.readAllLines(sftDir.resolve("train.jsonl"));
    List<String> heldOut = Files.readAllLines(sftDir.resolve("heldout.jsonl"));
    assertThat(train.size() + heldOut.size()).isEqualTo(38);
    assertThat(heldOut).isNotEmpty();
    ObjectMapper json = new ObjectMapper();
    for (String line : train) {
      JsonNode example = json.readTree(line);
      JsonNode messages = example.get("messages");
      String target = messages.get(messages.size() - 1).get("content").asText();
      assertThat(messages.get(messages.size() - 1).get("role").asText()).isEqualTo("assistant");
      assertThat(target).startsWith("<" + example.get("behavior").asText() + ">");
    }
  }

  private static CliResult answer(FakeOpenAiServer server) {
    return SparkTestSession.cli(
        "answer",
        "--warehouse",
        warehouse,
        "--mode",
        "behavior",
        "--set",
        "llm.backend=openai",
        "--set",
        "llm.base_url=" + server.baseUrl(),
        "--set",
        "llm.model=m-" + server.port());
  }

  private static String runId(CliResult result) {
    return result
        .out()
        .lines()
        .filter(l -> l.strip().startsWith("run_id "))
        .findFirst()
        .orElseThrow()
        .strip()
        .substring("run_id ".length());
  }

  /** Tasks both runs fail: wrong behaviour, or a proactive task's flag with wrong content. */
  private static List<String> failedByBoth(Warehouse w, String a, String b) {
    String failed =
        "(predicted_behavior <> gold_behavior OR (gold_behavior = 'proactive' AND content_correct = false))";
    return w.read("behavior_predictions")
        .filter("run_id IN ('" + a + "', '" + b + "') AND " + failed)
        .groupBy("task_id")
        .count()
        .filter("count = 2")
        .select("task_id")
        .as(org.apache.spark.sql.Encoders.STRING())
        .collectAsList();
  }
}
