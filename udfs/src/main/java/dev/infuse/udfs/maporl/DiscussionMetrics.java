package dev.infuse.udfs.maporl;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * Per-turn statistics of discussions, as the reference's {@code stat_all} computes them, plus the
 * per-agent counts it lacks.
 *
 * @param turns one entry per turn present, in turn order
 */
public record DiscussionMetrics(List<TurnMetrics> turns) {

  /**
   * The statistics of one turn.
   *
   * @param turn the turn
   * @param questions how many questions have answers at this turn
   * @param majorityVote the reference's majority-vote correctness, averaged over questions: the
   *     answers given most often are the majority (with {@code invalid} left out of a tie of two or
   *     more); a question scores 1/k when the correct answer is one of the k majority answers, else
   *     0
   * @param accuracy the fraction of agent-answers that are correct
   * @param agentAccuracy the fraction of each agent's answers that are correct, by agent
   * @param consensus the fraction of questions where every agent gave the same valid answer
   * @param improved at t >= 1: the fraction of agent-answers (agent and question present at t−1 and
   *     t) that went from wrong to right; null at turn 0
   * @param declined the same for right to wrong
   * @param unchanged the same for no change of correctness
   * @param majorityImproved at t >= 1, as the reference counts: questions whose majority-vote
   *     correctness rose from t−1 to t (e.g. 0.5 to 1); 0 at turn 0
   * @param majorityDeclined questions whose majority-vote correctness fell
   * @param majorityUnchanged questions whose majority-vote correctness stayed the same
   * @param persuasions at t >= 1: agent-answers that changed from the agent's own answer at t−1 to
   *     a valid answer some other agent gave to that question at t−1 (the reference has no such
   *     count; this is Infuse's definition); 0 at turn 0
   * @param persuasionsToCorrect those of the persuasions whose new answer is correct
   */
  public record TurnMetrics(
      int turn,
      int questions,
      double majorityVote,
      double accuracy,
      Map<String, Double> agentAccuracy,
      double consensus,
      Double improved,
      Double declined,
      Double unchanged,
      int majorityImproved,
      int majorityDeclined,
      int majorityUnchanged,
      int persuasions,
      int persuasionsToCorrect) {}

  /**
   * The statistics of {@code rows}, which may hold many questions, agents and turns. A question's
   * agents are those with a row at that turn.
   *
   * @throws IllegalArgumentException for two rows of the same (question, agent, turn)
   */
  public static DiscussionMetrics compute(List<AgentAnswer> rows) {
    // turn -> question -> agent -> row, keeping first-seen order of questions and agents
    Map<Integer, Map<String, Map<String, AgentAnswer>>> byTurn = new TreeMap<>();
    for (AgentAnswer row : rows) {
      Objects.requireNonNull(row, "row");
      AgentAnswer previous =
          byTurn
              .computeIfAbsent(row.turn(), t -> new LinkedHashMap<>())
              .computeIfAbsent(row.questionId(), q -> new LinkedHashMap<>())
              .put(row.agentId(), row);
      if (previous != null) {
        throw new IllegalArgumentException(
            "rows: two answers for (question "
                + row.questionId()
                + ", agent "
                + row.agentId()
                + ", turn "
                + row.turn()
                + "), expected one");
      }
    }
    List<TurnMetrics> turns = new ArrayList<>();
    Map<String, Map<String, AgentAnswer>> before = null;
    Map<String, Double> majorityBefore = null;
    int previousTurn = Integer.MIN_VALUE;
    for (Map.Entry<Integer, Map<String, Map<String, AgentAnswer>>> entry : byTurn.entrySet()) {
      int turn = entry.getKey();
      Map<String, Map<String, AgentAnswer>> questions = entry.getValue();
      boolean hasBefore = before != null && previousTurn == turn - 1;
      Map<String, Double> majority = new HashMap<>();
      double majoritySum = 0;
      int answers = 0;
      int right = 0;
      int consensus = 0;
      Map<String, int[]> perAgent = new LinkedHashMap<>();
      int pairs = 0;
      int improved = 0;
      int declined = 0;
      int persuasions = 0;
      int persuasionsToCorrect = 0;
      int majorityImproved = 0;
      int majorityDeclined = 0;
      int majorityUnchanged = 0;
      for (Map.Entry<String, Map<String, AgentAnswer>> question : questions.entrySet()) {
        Map<String, AgentAnswer> agents = question.getValue();
        double vote = majorityVote(agents.values());
        majority.put(question.getKey(), vote);
        majoritySum += vote;
        Set<String> distinct = new HashSet<>();
        boolean allValid = true;
        for (AgentAnswer row : agents.values()) {
          answers++;
          right += row.correct() ? 1 : 0;
          int[] counts = perAgent.computeIfAbsent(row.agentId(), a -> new int[2]);
          counts[0] += row.correct() ? 1 : 0;
          counts[1]++;
          distinct.add(row.answer());
          allValid &= isValid(row.answer());
        }
        if (allValid && distinct.size() == 1) {
          consensus++;
        }
        Map<String, AgentAnswer> earlier = hasBefore ? before.get(question.getKey()) : null;
        if (earlier == null) {
          continue;
        }
        double voteBefore = majorityBefore.get(question.getKey());
        if (vote > voteBefore) {
          majorityImproved++;
        } else if (vote < voteBefore) {
          majorityDeclined++;
        } else {
          majorityUnchanged++;
        }
        for (AgentAnswer row : agents.values()) {
          AgentAnswer own = earlier.get(row.agentId());
          if (own == null) {
            continue;
          }
          pairs++;
          if (!own.correct() && row.correct()) {
            improved++;
          } else if (own.correct() && !row.correct()) {
            declined++;
          }
          if (isValid(row.answer()) && !row.answer().equals(own.answer())) {
            for (AgentAnswer other : earlier.values()) {
              if (!other.agentId().equals(row.agentId()) && other.answer().equals(row.answer())) {
                persuasions++;
                persuasionsToCorrect += row.correct() ? 1 : 0;
                break;
              }
            }
          }
        }
      }
      Map<String, Double> agentAccuracy = new LinkedHashMap<>();
      perAgent.forEach((agent, counts) -> agentAccuracy.put(agent, counts[0] / (double) counts[1]));
      int n = questions.size();
      turns.add(
          new TurnMetrics(
              turn,
              n,
              majoritySum / n,
              right / (double) answers,
              agentAccuracy,
              consensus / (double) n,
              pairs == 0 ? null : improved / (double) pairs,
              pairs == 0 ? null : declined / (double) pairs,
              pairs == 0 ? null : (pairs - improved - declined) / (double) pairs,
              majorityImproved,
              majorityDeclined,
              majorityUnchanged,
              persuasions,
              persuasionsToCorrect));
      before = questions;
      majorityBefore = majority;
      previousTurn = turn;
    }
    return new DiscussionMetrics(List.copyOf(turns));
  }

  /**
   * The reference's majority-vote score of one question's answers at one turn: 1/k when the correct
   * answer is among the k most frequent answers ({@code invalid} dropped from a tie of two or
   * more), else 0.
   */
  static double majorityVote(Iterable<AgentAnswer> answers) {
    Map<String, Integer> counts = new LinkedHashMap<>();
    Set<String> correct = new HashSet<>();
    for (AgentAnswer row : answers) {
      counts.merge(row.answer(), 1, Integer::sum);
      if (row.correct()) {
        correct.add(row.answer());
      }
    }
    int max = counts.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    List<String> top = new ArrayList<>();
    counts.forEach(
        (answer, count) -> {
          if (count == max) {
            top.add(answer);
          }
        });
    if (top.size() > 1) {
      top.remove(ExtractedAnswer.INVALID);
    }
    for (String answer : top) {
      if (correct.contains(answer)) {
        return 1.0 / top.size();
      }
    }
    return 0.0;
  }

  private static boolean isValid(String answer) {
    return answer != null && !answer.isBlank() && !answer.equals(ExtractedAnswer.INVALID);
  }
}
