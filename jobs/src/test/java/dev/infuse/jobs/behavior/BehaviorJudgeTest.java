package dev.infuse.jobs.behavior;

import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.udfs.llm.FakeOpenAiServer;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code behavior.classifier=judge} end to end: the assistant answers through one loopback server,
 * and the judge, a different model on another server, reads each response's behaviour, greedily. A
 * judge reply that names no behaviour falls back to the rule classifier and says so; a task whose
 * judge call failed is quarantined rather than read by the rule, and a rerun judges only it.
 */
class BehaviorJudgeTest {
  private static final SparkSession SPARK = SparkTestSession.get();
  private static String warehouse;

  @BeforeAll
  static void buildTheTasks() {
    warehouse = ClinicalWarehouse.get();
    CliResult build = SparkTestSession.cli("build-behavior-tasks", "--warehouse", warehouse);
    assertThat(build.code()).as(build.toString()).isZero();
  }

  @Test
  void aJudgeOnItsOwnEndpointReadsEveryResponseGreedily() {
    Warehouse w = new Warehouse(SPARK, warehouse);
    long tasks = w.read("behavior_tasks").count();
    try (FakeOpenAiServer assistant = new FakeOpenAiServer();
        FakeOpenAiServer judge = new FakeOpenAiServer()) {
      // No behavioural token, and wording the rule classifier reads as reactive.
      assistant.setResponder(request -> "The most likely answer is the first option.");
      AtomicInteger judged = new AtomicInteger();
      judge.setResponder(
          request ->
              judged.getAndIncrement() == 0
                  ? "I cannot tell from this."
                  : "It raises a concern about the record.\nBehavior: proactive");
      // The first judge request fails for good (a 400 is not retried); the responder sees the rest.
      judge.faults().failFirst(1, FakeOpenAiServer.Fault.BAD_REQUEST);

      CliResult first = answer(assistant, judge);
      assertThat(first.code()).as(first.toString()).isZero();
      assertThat(first.out())
          .contains(
              tasks + " task(s) of behavior_tasks: " + (tasks - 1) + " answered, 1 quarantined")
          .contains("judge: 1 repl(ies) named no behaviour");
      assertThat(assistant.totalRequests()).isEqualTo((int) tasks);
      assertThat(judge.totalRequests()).isEqualTo((int) tasks);
      // The judge decodes greedily with its own model, whatever llm.temperature says.
      for (FakeOpenAiServer.Received received : judge.received()) {
        assertThat(received.json().get("temperature").asDouble()).isEqualTo(0.0);
        assertThat(received.json().get("model").asText()).isEqualTo("judge-model");
      }
      assertThat(assistant.received().get(0).json().get("temperature").asDouble()).isEqualTo(0.7);

      String runId = runId(first);
      List<Row> predictions =
          w.read("behavior_predictions").filter("run_id = '" + runId + "'").collectAsList();
      assertThat(predictions).hasSize((int) tasks - 1);
      long byJudge =
          predictions.stream()
              .filter(r -> r.<String>getAs("classified_by").startsWith("behavior-judge@1"))
              .peek(r -> assertThat(r.<String>getAs("predicted_behavior")).isEqualTo("proactive"))
              .count();
      assertThat(byJudge).isEqualTo(tasks - 2);
      assertThat(
              predictions.stream()
                  .filter(r -> r.<String>getAs("classified_by").equals("rule@1"))
                  .count())
          .isEqualTo(1);
      Row quarantined =
          w.read("quarantine")
              .filter("reason LIKE '%judge_s call failed%'")
              .limit(1)
              .collectAsList()
              .get(0);
      assertThat(quarantined.<String>getAs("reason")).contains("a rerun judges it again");

      // The rerun: every answer is cached, and only the failed judgement is asked again.
      judge.faults().clear();
      assistant.resetCounters();
      judge.resetCounters();
      CliResult again = answer(assistant, judge);
      assertThat(again.code()).as(again.toString()).isZero();
      assertThat(again.out()).contains(tasks + " answered, 0 quarantined");
      assertThat(assistant.totalRequests()).isZero();
      assertThat(judge.totalRequests()).isEqualTo(1);
    }
  }

  @Test
  void theExtractiveBackendCannotJudge() {
    CliResult result =
        SparkTestSession.cli(
            "answer",
            "--warehouse",
            warehouse,
            "--mode",
            "behavior",
            "--set",
            "behavior.classifier=judge");
    assertThat(result.code()).isNotZero();
    assertThat(result.err())
        .contains("behavior.classifier: got judge with the extractive backend as judge")
        .contains("behavior.classifier=rule");
  }

  private static CliResult answer(FakeOpenAiServer assistant, FakeOpenAiServer judge) {
    return SparkTestSession.cli(
        "answer",
        "--warehouse",
        warehouse,
        "--mode",
        "behavior",
        "--set",
        "llm.backend=openai",
        "--set",
        "llm.base_url=" + assistant.baseUrl(),
        "--set",
        "llm.model=assistant-model",
        "--set",
        "llm.temperature=0.7",
        "--set",
        "behavior.classifier=judge",
        "--set",
        "behavior.judge.base_url=" + judge.baseUrl(),
        "--set",
        "behavior.judge.model=judge-model");
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
}
