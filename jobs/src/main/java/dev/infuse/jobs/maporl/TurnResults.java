package dev.infuse.jobs.maporl;

import dev.infuse.udfs.maporl.BoxedAnswers;
import dev.infuse.udfs.maporl.ExtractedAnswer;
import dev.infuse.udfs.maporl.NonEosPenalty;
import dev.infuse.udfs.maporl.QuestionKind;
import dev.infuse.udfs.text.Tokenizers;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.OptionalDouble;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Plays the responses of one turn into the episodes, on the executors: extracts each answer from
 * its last {@code \boxed{}}, checks it against the gold answer, scores it with the configured
 * verifier (and the optional non-EOS penalty), and ends an episode at consensus when asked to. An
 * episode with a call that failed for good (or was never made) ends as failed, to be quarantined: a
 * discussion missing one agent's turn cannot go on.
 */
final class TurnResults implements FlatMapFunction<Iterator<Row>, Row> {
  private static final long serialVersionUID = 1L;

  /** The judge's verdict: the last "Score: p" of its response. */
  private static final Pattern JUDGE_SCORE =
      Pattern.compile("(?i)score\\s*[:=]\\s*([01](?:\\.\\d+)?|\\.\\d+)");

  static final StructType SCHEMA =
      new StructType()
          .add("episode_id", DataTypes.StringType, false)
          .add("state", DataTypes.StringType, false);

  private final DiscussionSetup setup;

  TurnResults(DiscussionSetup setup) {
    this.setup = setup;
  }

  /**
   * Input rows: {@code (episode_id, state, answers)}, answers an array of structs {@code
   * (agent_index, call_key, status, response_text, error, messages, user_message, judge_status,
   * judge_text, judge_error)}, or null for an episode already finished.
   */
  @Override
  public Iterator<Row> call(Iterator<Row> rows) {
    List<Row> out = new ArrayList<>();
    while (rows.hasNext()) {
      Row row = rows.next();
      Episode episode = Episode.fromJson(row.getString(1));
      if (!episode.finished()) {
        episode = play(episode, row.isNullAt(2) ? List.of() : row.getList(2));
      }
      out.add(RowFactory.create(episode.episodeId(), episode.toJson()));
    }
    return out.iterator();
  }

  private Episode play(Episode episode, List<Row> answers) {
    int turn = episode.turnsPlayed();
    Row[] byAgent = new Row[setup.agents()];
    for (Row answer : answers) {
      byAgent[answer.getInt(0)] = answer;
    }
    QuestionKind kind = QuestionKind.fromName(episode.kind());
    List<Episode.Turn> next = new ArrayList<>();
    for (int agent = 0; agent < setup.agents(); agent++) {
      Row answer = byAgent[agent];
      String agentId = setup.agentIds().get(agent);
      if (answer == null || answer.isNullAt(2)) {
        return episode.failed(
            "turn " + turn + ", agent " + agentId + ": no response (the call was deferred)");
      }
      if (!"succeeded".equals(answer.getString(2))) {
        return episode.failed(
            "turn " + turn + ", agent " + agentId + ": the call failed: " + answer.getString(4));
      }
      String response = answer.getString(3);
      ExtractedAnswer extracted = BoxedAnswers.extract(response, kind, episode.options().size());
      boolean correct = BoxedAnswers.isCorrect(extracted, episode.gold(), kind);
      double score;
      switch (setup.verifier()) {
        case EXACT:
          score = correct ? 1.0 : 0.0;
          break;
        case LLM_JUDGE:
          if (!"succeeded".equals(answer.getString(7))) {
            return episode.failed(
                "turn "
                    + turn
                    + ", agent "
                    + agentId
                    + ": the judge's call failed: "
                    + answer.getString(9));
          }
          OptionalDouble judged = judgeScore(answer.getString(8));
          if (judged.isEmpty()) {
            return episode.failed(
                "turn "
                    + turn
                    + ", agent "
                    + agentId
                    + ": the judge's response has no 'Score: p' with p in [0, 1]: "
                    + abbreviate(answer.getString(8)));
          }
          score = judged.getAsDouble();
          break;
        case MODEL:
          score = VerifierModels.score(setup.verifierModel(), episode.question(), response);
          break;
        default:
          throw new IllegalStateException("verifier " + setup.verifier());
      }
      String penalty = null;
      if (setup.penalty()) {
        int tokens = Tokenizers.defaultTokenizer().count(response);
        String why = NonEosPenalty.reason(response, tokens, turn);
        if (why != null) {
          penalty = why;
          score = NonEosPenalty.PENALTY;
        }
      }
      next.add(
          new Episode.Turn(
              turn,
              answer.getString(1),
              answer.getString(5),
              answer.getString(6),
              response,
              extracted.answer(),
              extracted.status(),
              correct,
              score,
              penalty));
    }
    boolean stop = turn + 1 >= setup.turns() || setup.consensusStop() && consensus(next);
    return episode.plus(next, stop);
  }

  /** All agents gave the same answer, and it is a valid one. */
  static boolean consensus(List<Episode.Turn> turns) {
    String first = turns.get(0).answer();
    return !ExtractedAnswer.INVALID.equals(first)
        && turns.stream().allMatch(t -> t.answer().equals(first));
  }

  static OptionalDouble judgeScore(String text) {
    if (text == null) {
      return OptionalDouble.empty();
    }
    Matcher matcher = JUDGE_SCORE.matcher(text);
    Double last = null;
    while (matcher.find()) {
      last = Double.parseDouble(matcher.group(1));
    }
    return last == null || last < 0 || last > 1 ? OptionalDouble.empty() : OptionalDouble.of(last);
  }

  private static String abbreviate(String text) {
    if (text == null) {
      return "(none)";
    }
    return text.length() <= 200 ? text : text.substring(0, 200) + "…";
  }

  static List<String> columns() {
    return Arrays.asList(SCHEMA.fieldNames());
  }
}
