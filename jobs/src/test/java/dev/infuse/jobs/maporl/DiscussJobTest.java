package dev.infuse.jobs.maporl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.jobs.contract.Contract;
import dev.infuse.jobs.contract.Contracts;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.udfs.llm.FakeOpenAiServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/**
 * discuss, reward and score on two OpenAI-compatible loopback servers that answer differently: the
 * first always keeps its own answer; the second answers wrongly (q1) or rightly (q2) alone, then
 * from turn 1 adopts the other agent's latest answer. Every rollout, prompt, extraction, reward and
 * per-turn metric below is worked out by hand from that.
 */
class DiscussJobTest {
  private static final SparkSession SPARK = SparkTestSession.get();
  private static final Pattern BOXED = Pattern.compile("\\\\boxed\\{([^}]*)}");

  @Test
  void discussesRewardsAndScoresTwoAgentsThatDisagree() throws Exception {
    String warehouse = SparkTestSession.tempDir("discuss").toString();
    Warehouse w = new Warehouse(SPARK, warehouse);
    Contract questions = Contracts.load("questions");
    w.upsert(
        questions,
        SPARK.createDataFrame(
            List.of(
                question("gsm8k:q1", "Tom has 9 apples and buys 9 more. How many now?", "18"),
                question("gsm8k:q2", "Ann had 9 pens and gave away 4. How many are left?", "5"),
                question("gsm8k:q3", "No gold answer here.", null)),
            questions.schema()));

    try (FakeOpenAiServer steady = new FakeOpenAiServer();
        FakeOpenAiServer follower = new FakeOpenAiServer()) {
      steady.setResponder(
          request ->
              text(request).contains("Tom has")
                  ? "9 + 9 = 18.\nAnswer: \\boxed{18}"
                  : "9 - 2 = 7.\nAnswer: \\boxed{7}");
      follower.setResponder(
          request -> {
            String last = lastUser(request);
            if (last.startsWith("These are the solutions to the problem from other agents:")) {
              Matcher m = BOXED.matcher(last);
              m.find();
              return "The other agent is right.\nAnswer: \\boxed{" + m.group(1) + "}";
            }
            return text(request).contains("Tom has")
                ? "9 + 8 = 17.\nAnswer: \\boxed{17}"
                : "9 - 4 = 5.\nAnswer: \\boxed{5,}";
          });
      String agents =
          "discuss.agents=[{id: steady, backend: openai, base_url: '"
              + steady.baseUrl()
              + "', model: m-steady}, {id: follower, backend: openai, base_url: '"
              + follower.baseUrl()
              + "', model: m-follower, temperature: 0.0}]";
      CliResult discuss =
          SparkTestSession.cli(
              "discuss", "--warehouse", warehouse, "--benchmark", "gsm8k", "--set", agents);
      assertThat(discuss.code()).as(discuss.toString()).isZero();
      assertThat(discuss.out())
          .contains("discuss: 3 question(s) of gsm8k, 2 agent(s) x up to 3 turn(s): 2 episode(s)")
          .contains("(12 rollout row(s)), 1 quarantined");
      // Two questions, two agents, three turns: each agent is asked once per question and turn.
      assertThat(steady.totalRequests()).isEqualTo(6);
      assertThat(follower.totalRequests()).isEqualTo(6);

      Map<String, Row> rows = new HashMap<>();
      for (Row row : w.read("rollouts").collectAsList()) {
        rows.put(
            row.<String>getAs("question_id")
                + "/"
                + row.<String>getAs("agent_id")
                + "/"
                + row.<Integer>getAs("turn"),
            row);
      }
      assertThat(rows).hasSize(12);
      assertAnswer(rows.get("gsm8k:q1/follower/0"), "17", false);
      assertAnswer(rows.get("gsm8k:q1/follower/1"), "18", true);
      assertAnswer(rows.get("gsm8k:q1/steady/2"), "18", true);
      // "5," keeps only digits, '.' and '-': still 5.
      assertAnswer(rows.get("gsm8k:q2/follower/0"), "5", true);
      assertAnswer(rows.get("gsm8k:q2/follower/2"), "7", false);
      assertThat(rows.get("gsm8k:q1/follower/1").<String>getAs("model"))
          .isEqualTo("openai:m-follower");
      // Turn 1 shows the other agent's latest (turn 0) response, after the agent's own history.
      String prompt = rows.get("gsm8k:q1/follower/1").getAs("prompt");
      assertThat(prompt)
          .contains("These are the solutions to the problem from other agents:")
          .contains("9 + 9 = 18.")
          .contains("9 + 8 = 17.")
          .contains("Once again, the question is:");
      // Turn 2 shows turn 1's answers, never turn 0's of the other agent.
      String turn2 = rows.get("gsm8k:q2/steady/2").getAs("prompt");
      assertThat(turn2).contains("The other agent is right.");
      assertThat(rows.get("gsm8k:q1/steady/0").<Double>getAs("verifier_score")).isEqualTo(1.0);
      assertThat(rows.get("gsm8k:q1/follower/0").<Double>getAs("verifier_score")).isEqualTo(0.0);
      assertThat(
              w.read("quarantine")
                  .filter("job = 'discuss'")
                  .collectAsList()
                  .get(0)
                  .<String>getAs("reason"))
          .contains("gold: null");

      // A rerun asks nothing: every turn comes back from llm_calls.
      CliResult again =
          SparkTestSession.cli(
              "discuss", "--warehouse", warehouse, "--benchmark", "gsm8k", "--set", agents);
      assertThat(again.code()).as(again.toString()).isZero();
      assertThat(steady.totalRequests() + follower.totalRequests()).isEqualTo(12);
    }

    CliResult reward = SparkTestSession.cli("reward", "--warehouse", warehouse);
    assertThat(reward.code()).as(reward.toString()).isZero();
    Map<String, Double> rewards = new HashMap<>();
    Map<String, String> episodes = new HashMap<>();
    for (Row row : w.read("rollouts").collectAsList()) {
      episodes.put(row.<String>getAs("episode_id"), row.getAs("question_id"));
    }
    for (Row row : w.read("rewards").collectAsList()) {
      rewards.put(
          episodes.get(row.<String>getAs("episode_id"))
              + "/"
              + row.<String>getAs("agent_id")
              + "/"
              + row.<Integer>getAs("turn"),
          row.getAs("reward"));
    }
    assertThat(rewards).hasSize(12);
    // discounted_sum, share all, gamma 0.3. q1 scores: steady 1,1,1; follower 0,1,1; S = .5, 1, 1.
    // R(0, follower) = [0 + .3*1 + .09*1] / (1 + .3 + .09) = .39 / 1.39
    assertThat(rewards.get("gsm8k:q1/follower/0")).isCloseTo(0.39 / 1.39, within(1e-9));
    // R(0, steady) = [1 + .3 + .09] / 1.39 = 1
    assertThat(rewards.get("gsm8k:q1/steady/0")).isCloseTo(1.0, within(1e-9));
    // R(2, *) = own score alone: q2 follower at turn 2 is wrong.
    assertThat(rewards.get("gsm8k:q2/follower/2")).isCloseTo(0.0, within(1e-9));

    CliResult score =
        SparkTestSession.cli(
            "score", "--warehouse", warehouse, "--set", "score.discussions=[latest]");
    assertThat(score.code()).as(score.toString()).isZero();
    Map<String, Double> metrics = new HashMap<>();
    for (Row row : w.read("discussion_scores").collectAsList()) {
      metrics.put(
          row.<String>getAs("metric")
              + "/"
              + row.<String>getAs("agent_id")
              + "/"
              + row.<Integer>getAs("turn"),
          row.getAs("value"));
    }
    // Turn 0: q1 ties 18/17 and q2 ties 7/5, each with the right answer among 2: 1/2 each.
    assertThat(metrics.get("majority_accuracy/all/0")).isCloseTo(0.5, within(1e-12));
    assertThat(metrics.get("accuracy/all/0")).isCloseTo(0.5, within(1e-12));
    assertThat(metrics.get("consensus_rate/all/0")).isCloseTo(0.0, within(1e-12));
    // Turn 1: both agree on both (18 right, 7 wrong); the follower improved on q1, declined on q2.
    assertThat(metrics.get("majority_accuracy/all/1")).isCloseTo(0.5, within(1e-12));
    assertThat(metrics.get("consensus_rate/all/1")).isCloseTo(1.0, within(1e-12));
    assertThat(metrics.get("improve_ratio/all/1")).isCloseTo(0.25, within(1e-12));
    assertThat(metrics.get("decline_ratio/all/1")).isCloseTo(0.25, within(1e-12));
    assertThat(metrics.get("persuasion_events/all/1")).isEqualTo(2.0);
    assertThat(metrics.get("persuasion_events/all/2")).isEqualTo(0.0);
    assertThat(metrics.get("accuracy/steady/2")).isCloseTo(0.5, within(1e-12));
    assertThat(metrics.get("accuracy/follower/0")).isCloseTo(0.5, within(1e-12));
  }

  @Test
  void rewardsAJsonlFileAndQuarantinesBadLines() throws Exception {
    String warehouse = SparkTestSession.tempDir("reward-jsonl").toString();
    Path input = Files.createTempFile("rollouts", ".jsonl");
    Path output = input.resolveSibling(input.getFileName() + ".out.jsonl");
    Files.writeString(
        input,
        String.join(
            "\n",
            "{\"episode_id\":\"e1\",\"agent_id\":\"a\",\"turn\":0,\"score\":1.0}",
            "{\"episode_id\":\"e1\",\"agent_id\":\"b\",\"turn\":0,\"score\":0.2}",
            "{\"episode_id\":\"e1\",\"agent_id\":\"a\",\"turn\":1,\"score\":0.9,\"correct\":1}",
            "{\"episode_id\":\"e1\",\"agent_id\":\"b\",\"turn\":1,\"score\":0.8}",
            "{\"episode_id\":\"e2\",\"agent_id\":\"a\",\"turn\":0,\"score\":1.5}",
            "{\"episode_id\":\"e3\",\"agent_id\":\"a\",\"turn\":0,\"score\":0.5}",
            "{\"episode_id\":\"e3\",\"agent_id\":\"b\",\"turn\":1,\"score\":0.5}",
            "not json",
            ""));
    CliResult result =
        SparkTestSession.cli(
            "reward",
            "--warehouse",
            warehouse,
            "--input",
            input.toString(),
            "--output",
            output.toString(),
            "--horizon",
            "last",
            "--share",
            "individual");
    assertThat(result.code()).as(result.toString()).isZero();
    assertThat(result.out())
        .contains("reward: 8 line(s)")
        .contains("4 rewarded")
        .contains("4 quarantined");
    List<String> lines = Files.readAllLines(output);
    assertThat(lines).hasSize(4);
    JsonNode first = new com.fasterxml.jackson.databind.ObjectMapper().readTree(lines.get(0));
    assertThat(first.get("episode_id").asText()).isEqualTo("e1");
    assertThat(first.get("reward").asDouble())
        .isCloseTo(first.get("base").asDouble() + first.get("bonus").asDouble(), within(1e-12));
    List<Row> quarantine =
        new Warehouse(SPARK, warehouse).read("quarantine").filter("job = 'reward'").collectAsList();
    assertThat(quarantine).hasSize(4);
    assertThat(quarantine.stream().map(r -> r.<String>getAs("reason")).toList())
        .anySatisfy(
            r -> assertThat(r).contains("line 5: score: got 1.5, expected a number in [0, 1]"))
        .anySatisfy(r -> assertThat(r).contains("line 8: not JSON"))
        .anySatisfy(r -> assertThat(r).contains("episode e3"));
  }

  private static void assertAnswer(Row row, String answer, boolean correct) {
    assertThat(row.<String>getAs("parsed_answer")).isEqualTo(answer);
    assertThat(row.<String>getAs("parse_status")).isEqualTo("ok");
    assertThat(row.<Boolean>getAs("correct")).isEqualTo(correct);
  }

  private static String text(JsonNode request) {
    return request.get("messages").toString();
  }

  private static String lastUser(JsonNode request) {
    JsonNode messages = request.get("messages");
    return messages.get(messages.size() - 1).get("content").asText();
  }

  private static Row question(String id, String text, String gold) {
    return RowFactory.create(
        id, null, "gsm8k", "train", text, null, gold, null, "numeric", List.of(), Map.of());
  }
}
