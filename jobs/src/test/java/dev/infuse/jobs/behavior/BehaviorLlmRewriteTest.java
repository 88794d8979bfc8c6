package dev.infuse.jobs.behavior;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.udfs.behavior.GoldTarget;
import dev.infuse.udfs.llm.FakeOpenAiServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/**
 * The behaviour recipe's two LLM-assisted steps against an OpenAI-compatible loopback server, on
 * the first AgentClinic case and the first MedQA question of the clinical samples (six tasks:
 * restraint, diagnosis, error, omission and conflict from the case, one multiple-choice question):
 * build-behavior-tasks with behavior.conversation=llm, and sft-data with behavior.sft.rewrite=llm.
 * Every count below follows from the responders and the tasks' gold.
 */
class BehaviorLlmRewriteTest {
  private static final SparkSession SPARK = SparkTestSession.get();
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern KEYED = Pattern.compile("^([A-Za-z_ ]+):\\s*(.*\\d.*)$");

  @Test
  void conversationModeUsesCheckedRewritesQuarantinesFailedCallsAndRerunsFromTheCache()
      throws Exception {
    String warehouse = ClinicalWarehouse.ingestedOnly("behavior-conversation");
    Warehouse w = new Warehouse(SPARK, warehouse);
    CliResult note = build(warehouse);
    assertThat(note.code()).as(note.toString()).isZero();
    assertThat(note.out())
        .contains(
            "2 source record(s) of agentclinic, medqa: 6 task(s) built under infuse-behavior@1,"
                + " 0 record(s) quarantined");
    Map<String, Row> before = tasksByCategory(w);
    assertThat(before.keySet())
        .containsExactlyInAnyOrder(
            "restraint",
            "differential_diagnosis",
            "error_correction",
            "omission_detection",
            "consistency_check",
            "question_answering");
    String errorWrong =
        GoldTarget.fromJson(before.get("error_correction").getAs("gold_target")).wrong();

    try (FakeOpenAiServer server = new FakeOpenAiServer()) {
      server.setResponder(BehaviorLlmRewriteTest::clinicians);
      // The error task's call fails: it is held back, quarantined, and called on the rerun.
      server
          .faults()
          .failWhen(r -> r.toString().contains(errorWrong), FakeOpenAiServer.Fault.BAD_REQUEST);
      String model = "m-" + server.port();
      CliResult first = build(warehouse, llm(server));
      assertThat(first.code()).as(first.toString()).isZero();
      assertThat(first.out())
          .contains("6 task(s) built under infuse-behavior@1, 0 record(s) quarantined")
          .contains(
              "conversation (llm, behavior-conversation@1, openai:"
                  + model
                  + "): 5 task(s) sent: 3 rewritten, 1 rejected, 1 call(s) failed; 1 not sent")
          .contains("llm: 5 request(s), 0 cached, 5 called, 1 failed")
          .contains("1 task(s) of 1 record(s) quarantined");
      assertThat(server.totalRequests()).isEqualTo(5);

      Map<String, Row> after = tasksByCategory(w);
      for (String category : List.of("restraint", "differential_diagnosis", "omission_detection")) {
        Row row = after.get(category);
        assertThat(speakers(row)).as(category).containsExactly("attending", "nurse", "resident");
        assertThat(construction(row))
            .as(category)
            .containsEntry("conversation", "llm:behavior-conversation@1")
            .containsEntry("conversation.generator", "openai:" + model)
            .containsEntry("conversation.check", "conversation-check@v1");
      }
      // The responder resolved the contradiction: the rewrite is rejected, the case kept.
      Row conflict = after.get("consistency_check");
      GoldTarget conflictGold = GoldTarget.fromJson(conflict.getAs("gold_target"));
      assertThat(construction(conflict).get("conversation"))
          .startsWith("rejected: a conflicting value is gone: ")
          .endsWith(" of '" + conflictGold.second() + "'");
      assertThat(turns(conflict)).isEqualTo(turns(before.get("consistency_check")));
      assertThat(first.out())
          .contains("rejected " + conflict.getAs("task_id") + ": a conflicting value is gone");
      assertThat(construction(after.get("question_answering")))
          .containsEntry("conversation", "not sent: the options are read by letter");
      // The held-back task is not written: its row is still the note build's.
      assertThat(turns(after.get("error_correction")))
          .isEqualTo(turns(before.get("error_correction")));
      assertThat(construction(after.get("error_correction"))).doesNotContainKey("conversation");
      List<Row> quarantined =
          w.read("quarantine").filter("job = 'build-behavior-tasks'").collectAsList();
      assertThat(quarantined).hasSize(1);
      assertThat(quarantined.get(0).<String>getAs("location"))
          .isEqualTo(before.get("error_correction").getAs("task_id"));
      assertThat(quarantined.get(0).<String>getAs("reason"))
          .contains("the conversation rewrite call failed")
          .contains("a rerun calls it again");
      assertThat(quarantined.get(0).<String>getAs("payload")).contains(errorWrong);

      server.faults().clear();
      CliResult retry = build(warehouse, llm(server));
      assertThat(retry.code()).as(retry.toString()).isZero();
      assertThat(retry.out())
          .contains("5 task(s) sent: 4 rewritten, 1 rejected, 0 call(s) failed; 1 not sent")
          .contains("llm: 5 request(s), 4 cached, 1 called, 0 failed");
      assertThat(server.totalRequests()).isEqualTo(6);
      Row error = tasksByCategory(w).get("error_correction");
      assertThat(speakers(error)).containsExactly("attending", "nurse", "resident");
      assertThat(String.join("\n", turns(error))).contains(errorWrong.strip());

      long tasksVersion = w.version("behavior_tasks");
      long callsVersion = w.version("llm_calls");
      long quarantineVersion = w.version("quarantine");
      CliResult again = build(warehouse, llm(server));
      assertThat(again.code()).as(again.toString()).isZero();
      assertThat(again.out()).contains("llm: 5 request(s), 5 cached, 0 called, 0 failed");
      assertThat(server.totalRequests()).as("a rerun asks nothing").isEqualTo(6);
      assertThat(w.version("behavior_tasks")).as("a rerun commits nothing").isEqualTo(tasksVersion);
      assertThat(w.version("llm_calls")).isEqualTo(callsVersion);
      assertThat(w.version("quarantine")).isEqualTo(quarantineVersion);
    }
  }

  @Test
  void sftRewritesKeepTheGoldTokenAndFallBackWhenTheContentIsLost() throws Exception {
    String warehouse = ClinicalWarehouse.ingestedOnly("behavior-sft-rewrite");
    CliResult tasks = build(warehouse);
    assertThat(tasks.code()).as(tasks.toString()).isZero();
    try (FakeOpenAiServer server = new FakeOpenAiServer()) {
      // Each template text is said in other words, except the conflict, whose values are lost.
      server.setResponder(
          request -> {
            String target = between(lastUser(request), "in the fixed form:\n", "\n\nRewrite");
            return target.startsWith("Conflict:")
                ? "The vital signs were recorded twice; please confirm them."
                : "Having read the record: " + target;
          });
      String[] sft = sftData(warehouse, server);
      CliResult first = SparkTestSession.cli(sft);
      assertThat(first.code()).as(first.toString()).isZero();
      assertThat(first.out())
          .contains("sft-data: 6 task(s)")
          .contains(
              "targets (llm, behavior-sft-rewrite@1, openai:m-"
                  + server.port()
                  + "): 5 rewritten, 1 fell back to the template (check failed), 0 call(s)"
                  + " failed");
      assertThat(server.totalRequests()).isEqualTo(6);

      Map<String, JsonNode> byCategory = new HashMap<>();
      Path dir = Path.of(warehouse, "sft", "behavior");
      for (String file : List.of("train.jsonl", "heldout.jsonl")) {
        for (String line : Files.readAllLines(dir.resolve(file))) {
          JsonNode example = JSON.readTree(line);
          byCategory.put(example.get("category").asText(), example);
        }
      }
      assertThat(byCategory).hasSize(6);
      for (Map.Entry<String, JsonNode> entry : byCategory.entrySet()) {
        JsonNode example = entry.getValue();
        String target = assistant(example);
        String token = "<" + example.get("behavior").asText() + "> ";
        if (entry.getKey().equals("consistency_check")) {
          assertThat(example.get("target_source").asText()).isEqualTo("template");
          assertThat(example.get("rewrite_fallback").asText())
              .isEqualTo(
                  "not content-correct (ContentScorer v1): it does not name the gold conflict's"
                      + " content");
          assertThat(target).startsWith("<proactive> Conflict: ");
        } else {
          assertThat(example.get("target_source").asText())
              .as(entry.getKey())
              .isEqualTo("llm:behavior-sft-rewrite@1");
          assertThat(example.has("rewrite_fallback")).isFalse();
          assertThat(target).as(entry.getKey()).startsWith(token + "Having read the record: ");
        }
      }
      assertThat(assistant(byCategory.get("restraint")))
          .isEqualTo("<restraint> Having read the record: Nothing in the record needs flagging.");

      CliResult again = SparkTestSession.cli(sft);
      assertThat(again.code()).as(again.toString()).isZero();
      assertThat(again.out()).contains("llm: 6 request(s), 6 cached, 0 called, 0 failed");
      assertThat(server.totalRequests()).as("a rerun asks nothing").isEqualTo(6);
    }
  }

  @Test
  void theModelFreeBackendRefusesBothRewritesNamingTheSettingToChange() {
    String warehouse = ClinicalWarehouse.ingestedOnly("behavior-extractive");
    CliResult conversation = build(warehouse, "--conversation", "llm");
    assertThat(conversation.code()).isEqualTo(2);
    assertThat(conversation.err())
        .contains(
            "behavior.conversation: got llm with llm.backend extractive, which runs no model to"
                + " rewrite a case; expected llm.backend openai or djl, or"
                + " behavior.conversation=template");
    Warehouse w = new Warehouse(SPARK, warehouse);
    assertThat(w.exists("behavior_tasks")).as("nothing is built").isFalse();

    CliResult old = build(warehouse, "--set", "behavior.conversation=true");
    assertThat(old.code()).isEqualTo(2);
    assertThat(old.err())
        .contains("behavior.conversation: got 'true', expected note, template or llm");

    assertThat(build(warehouse).code()).isZero();
    CliResult sft = SparkTestSession.cli("sft-data", "--warehouse", warehouse, "--rewrite", "llm");
    assertThat(sft.code()).isEqualTo(2);
    assertThat(sft.err())
        .contains(
            "behavior.sft.rewrite: got llm with llm.backend extractive, which runs no model to"
                + " rewrite a target; expected llm.backend openai or djl, or"
                + " behavior.sft.rewrite=template");
  }

  private static CliResult build(String warehouse, String... more) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "build-behavior-tasks",
                "--warehouse",
                warehouse,
                "--sources",
                "agentclinic,medqa",
                "--max-records-per-source",
                "1"));
    args.addAll(List.of(more));
    return SparkTestSession.cli(args.toArray(String[]::new));
  }

  private static String[] llm(FakeOpenAiServer server) {
    return new String[] {
      "--conversation",
      "llm",
      "--set",
      "llm.backend=openai",
      "--set",
      "llm.base_url=" + server.baseUrl(),
      "--set",
      "llm.model=m-" + server.port(),
      // One failed call of five is the point of the first run; the default ceiling is 0.1.
      "--set",
      "llm.max_failure_fraction=0.5"
    };
  }

  private static String[] sftData(String warehouse, FakeOpenAiServer server) {
    return new String[] {
      "sft-data",
      "--warehouse",
      warehouse,
      "--rewrite",
      "llm",
      "--set",
      "llm.backend=openai",
      "--set",
      "llm.base_url=" + server.baseUrl(),
      "--set",
      "llm.model=m-" + server.port()
    };
  }

  /**
   * A model that presents the case line by line on a ward round, attending first, then resident and
   * nurse in turn; when a finding is stated twice with different numbers it keeps the first only,
   * as a model that tidies up a contradiction would.
   */
  private static String clinicians(JsonNode request) {
    String context = between(lastUser(request), "Case:\n", "\n\nRewrite this case");
    List<String> turns = new ArrayList<>();
    turns.add("attending: Let's go over this patient.");
    String previousKey = null;
    String previousValue = null;
    for (String line : context.split("\n")) {
      String text = line.strip().replaceFirst("^note: ", "");
      if (text.isEmpty()) {
        continue;
      }
      Matcher keyed = KEYED.matcher(text);
      String key = keyed.matches() ? keyed.group(1) : null;
      String value = key == null ? null : keyed.group(2);
      if (key != null && key.equals(previousKey) && !value.equals(previousValue)) {
        continue;
      }
      previousKey = key;
      previousValue = value;
      turns.add((turns.size() % 2 == 1 ? "resident: " : "nurse: ") + text);
    }
    return String.join("\n", turns);
  }

  private static String lastUser(JsonNode request) {
    JsonNode messages = request.get("messages");
    return messages.get(messages.size() - 1).get("content").asText();
  }

  private static String between(String text, String start, String end) {
    int from = text.indexOf(start) + start.length();
    return text.substring(from, text.lastIndexOf(end));
  }

  private static String assistant(JsonNode example) {
    JsonNode messages = example.get("messages");
    return messages.get(messages.size() - 1).get("content").asText();
  }

  private static Map<String, Row> tasksByCategory(Warehouse w) {
    Map<String, Row> byCategory = new HashMap<>();
    for (Row row : w.read("behavior_tasks").collectAsList()) {
      byCategory.put(row.getAs("category"), row);
    }
    return byCategory;
  }

  private static List<String> turns(Row row) {
    List<String> turns = new ArrayList<>();
    for (Row turn : row.<Row>getList(row.fieldIndex("context"))) {
      turns.add(turn.getString(0) + ": " + turn.getString(1));
    }
    return turns;
  }

  private static TreeSet<String> speakers(Row row) {
    TreeSet<String> speakers = new TreeSet<>();
    for (Row turn : row.<Row>getList(row.fieldIndex("context"))) {
      speakers.add(turn.getString(0));
    }
    return speakers;
  }

  private static Map<String, String> construction(Row row) {
    return scala.collection.JavaConverters.mapAsJavaMap(
        row.<scala.collection.Map<String, String>>getAs("construction"));
  }
}
