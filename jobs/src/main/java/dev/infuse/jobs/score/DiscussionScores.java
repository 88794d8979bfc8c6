package dev.infuse.jobs.score;

import static org.apache.spark.sql.functions.col;

import dev.infuse.jobs.contract.Contract;
import dev.infuse.jobs.contract.Contracts;
import dev.infuse.jobs.io.WriteResult;
import dev.infuse.jobs.run.JobRun;
import dev.infuse.udfs.maporl.AgentAnswer;
import dev.infuse.udfs.maporl.DiscussionMetrics;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;

/**
 * MAPoRL's per-turn metrics of discussions, for {@code score}: the udfs {@link DiscussionMetrics}
 * (the reference's stat_all) over each discussion's rollouts, as rows of {@code discussion_scores}.
 * A discussion is a few thousand rows at most (questions × agents × turns), so its answers are
 * brought to the driver.
 */
final class DiscussionScores {
  /** The job that writes rollouts (maporl's DiscussJob.NAME; score must not depend on maporl). */
  private static final String DISCUSS_JOB = "discuss";

  /** The group's rows carry this agent id. */
  public static final String ALL_AGENTS = "all";

  private final JobRun run;

  DiscussionScores(JobRun run) {
    this.run = run;
  }

  /** What scoring discussions did: rows written, and the rollouts rows read. */
  public record Written(long rolloutRows, int rows, WriteResult write) {}

  /**
   * The discussion ids to score: {@code latest} stands for those the latest succeeded discuss run
   * wrote.
   */
  public List<String> resolve(List<String> wanted) {
    List<String> ids = new ArrayList<>();
    for (String id : wanted) {
      if (!"latest".equals(id)) {
        ids.add(id);
        continue;
      }
      List<Row> latest =
          run.warehouse()
              .read("runs")
              .filter(col("job").equalTo(DISCUSS_JOB).and(col("status").equalTo("succeeded")))
              .orderBy(col("started_at").desc())
              .limit(1)
              .collectAsList();
      if (latest.isEmpty()) {
        throw new IllegalArgumentException(
            "score.discussions: got latest, expected a succeeded discuss run in runs first");
      }
      ids.addAll(
          run.warehouse()
              .read("rollouts")
              .filter(col("run_id").equalTo(latest.get(0).<String>getAs("run_id")))
              .select("discussion_id")
              .distinct()
              .orderBy("discussion_id")
              .as(Encoders.STRING())
              .collectAsList());
    }
    return ids;
  }

  /** Scores {@code discussionIds} into discussion_scores under {@code scoreRunId}. */
  public Written score(List<String> discussionIds, String scoreRunId) {
    if (!run.warehouse().exists("rollouts")) {
      throw new IllegalArgumentException(
          "score.discussions: got "
              + discussionIds
              + " but no rollouts table, expected a discuss run first");
    }
    Dataset<Row> rollouts =
        run.warehouse()
            .read("rollouts")
            .filter(col("discussion_id").isin(discussionIds.toArray()))
            .select(
                "discussion_id",
                "benchmark",
                "iteration",
                "run_id",
                "question_id",
                "agent_id",
                "turn",
                "parsed_answer",
                "correct");
    List<Row> answers = rollouts.collectAsList();
    Map<String, List<AgentAnswer>> byDiscussion = new LinkedHashMap<>();
    Map<String, Row> first = new LinkedHashMap<>();
    Map<String, String> latestRun = new LinkedHashMap<>();
    for (Row row : answers) {
      String discussion = row.getString(0);
      byDiscussion
          .computeIfAbsent(discussion, k -> new ArrayList<>())
          .add(
              new AgentAnswer(
                  row.getString(4),
                  row.getString(5),
                  row.getInt(6),
                  row.getString(7),
                  row.getBoolean(8)));
      first.putIfAbsent(discussion, row);
      latestRun.merge(discussion, row.getString(3), (a, b) -> a.compareTo(b) >= 0 ? a : b);
    }
    List<String> missing = new ArrayList<>(discussionIds);
    missing.removeAll(byDiscussion.keySet());
    if (!missing.isEmpty()) {
      throw new IllegalArgumentException(
          "score.discussions: got " + missing + ", expected discussion ids present in rollouts");
    }
    List<Row> rows = new ArrayList<>();
    for (Map.Entry<String, List<AgentAnswer>> entry : byDiscussion.entrySet()) {
      Row head = first.get(entry.getKey());
      Integer iteration = head.isNullAt(2) ? null : head.getInt(2);
      DiscussionMetrics metrics = DiscussionMetrics.compute(entry.getValue());
      for (DiscussionMetrics.TurnMetrics turn : metrics.turns()) {
        Row base =
            RowFactory.create(
                scoreRunId,
                entry.getKey(),
                latestRun.get(entry.getKey()),
                head.getString(1),
                iteration);
        long questions = turn.questions();
        long answersAtTurn = 0;
        for (AgentAnswer a : entry.getValue()) {
          if (a.turn() == turn.turn()) {
            answersAtTurn++;
          }
        }
        add(
            rows,
            base,
            turn.turn(),
            ALL_AGENTS,
            "majority_accuracy",
            turn.majorityVote(),
            questions);
        add(rows, base, turn.turn(), ALL_AGENTS, "accuracy", turn.accuracy(), answersAtTurn);
        add(rows, base, turn.turn(), ALL_AGENTS, "consensus_rate", turn.consensus(), questions);
        if (turn.improved() != null) {
          add(rows, base, turn.turn(), ALL_AGENTS, "improve_ratio", turn.improved(), answersAtTurn);
          add(rows, base, turn.turn(), ALL_AGENTS, "decline_ratio", turn.declined(), answersAtTurn);
          add(
              rows,
              base,
              turn.turn(),
              ALL_AGENTS,
              "no_change_ratio",
              turn.unchanged(),
              answersAtTurn);
          add(
              rows,
              base,
              turn.turn(),
              ALL_AGENTS,
              "persuasion_events",
              turn.persuasions(),
              answersAtTurn);
          add(
              rows,
              base,
              turn.turn(),
              ALL_AGENTS,
              "persuasions_to_correct",
              turn.persuasionsToCorrect(),
              answersAtTurn);
          add(
              rows,
              base,
              turn.turn(),
              ALL_AGENTS,
              "majority_improved",
              turn.majorityImproved(),
              questions);
          add(
              rows,
              base,
              turn.turn(),
              ALL_AGENTS,
              "majority_declined",
              turn.majorityDeclined(),
              questions);
        }
        for (Map.Entry<String, Double> agent : turn.agentAccuracy().entrySet()) {
          long n =
              entry.getValue().stream()
                  .filter(a -> a.turn() == turn.turn() && a.agentId().equals(agent.getKey()))
                  .count();
          add(rows, base, turn.turn(), agent.getKey(), "accuracy", agent.getValue(), n);
        }
      }
    }
    Contract contract = Contracts.load("discussion_scores");
    WriteResult write =
        run.warehouse().upsert(contract, run.spark().createDataFrame(rows, contract.schema()));
    print(rows);
    return new Written(answers.size(), rows.size(), write);
  }

  private static void add(
      List<Row> rows, Row base, int turn, String agent, String metric, double value, long n) {
    rows.add(
        RowFactory.create(
            base.get(0),
            base.get(1),
            base.get(2),
            base.get(3),
            base.get(4),
            turn,
            agent,
            metric,
            value,
            n));
  }

  /** One line per discussion and turn: the numbers the MAPoRL paper reports per turn. */
  private void print(List<Row> rows) {
    Map<String, Map<String, Double>> byTurn = new LinkedHashMap<>();
    for (Row row : rows) {
      if (!ALL_AGENTS.equals(row.getString(6))) {
        continue;
      }
      String key = row.getString(1) + " turn " + row.getInt(5);
      byTurn
          .computeIfAbsent(key, k -> new LinkedHashMap<>())
          .put(row.getString(7), row.getDouble(8));
    }
    for (Map.Entry<String, Map<String, Double>> entry : byTurn.entrySet()) {
      Map<String, Double> m = entry.getValue();
      run.out()
          .printf(
              Locale.ROOT,
              "  discussion %s: majority accuracy %.3f, accuracy %.3f, consensus %.3f%s%n",
              entry.getKey(),
              m.get("majority_accuracy"),
              m.get("accuracy"),
              m.get("consensus_rate"),
              m.containsKey("improve_ratio")
                  ? String.format(
                      Locale.ROOT,
                      ", improve %.3f, decline %.3f, persuasions %.0f",
                      m.get("improve_ratio"),
                      m.get("decline_ratio"),
                      m.get("persuasion_events"))
                  : "");
    }
  }
}
