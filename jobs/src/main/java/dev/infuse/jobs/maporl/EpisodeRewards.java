package dev.infuse.jobs.maporl;

import dev.infuse.udfs.maporl.GroupAdvantages;
import dev.infuse.udfs.maporl.RewardSettings;
import dev.infuse.udfs.maporl.Rewards;
import dev.infuse.udfs.maporl.TurnReward;
import dev.infuse.udfs.maporl.TurnScore;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Rewards one episode at a time: the udfs reward rules over its grid of agents and turns, then, for
 * {@code reward.advantage group}, each reward normalised among the episode's responses (the
 * responses to one question in one discussion, GRPO's group). On the executors for {@code
 * rollouts}; on the driver for a JSONL file.
 */
final class EpisodeRewards implements FlatMapFunction<Iterator<Row>, Row>, Serializable {
  private static final long serialVersionUID = 1L;

  /** The rewards contract's columns, then {@code reject}: why the episode could not be rewarded. */
  static final StructType OUTPUT =
      new StructType()
          .add("reward_settings_id", DataTypes.StringType, false)
          .add("reward_settings", DataTypes.StringType, false)
          .add("episode_id", DataTypes.StringType, false)
          .add("question_id", DataTypes.StringType, true)
          .add("agent_id", DataTypes.StringType, false)
          .add("turn", DataTypes.IntegerType, false)
          .add("score", DataTypes.DoubleType, false)
          .add("correct", DataTypes.BooleanType, false)
          .add("base", DataTypes.DoubleType, false)
          .add("bonus", DataTypes.DoubleType, false)
          .add("reward", DataTypes.DoubleType, false)
          .add("advantage", DataTypes.DoubleType, true)
          .add("discuss_run_id", DataTypes.StringType, true)
          .add("run_id", DataTypes.StringType, false)
          .add("reject", DataTypes.StringType, true);

  private final RewardSettings settings;
  private final boolean groupAdvantage;
  final String settingsId;
  private final String settingsJson;
  private final String runId;

  EpisodeRewards(
      RewardSettings settings,
      boolean groupAdvantage,
      String settingsId,
      String settingsJson,
      String runId) {
    this.settings = settings;
    this.groupAdvantage = groupAdvantage;
    this.settingsId = settingsId;
    this.settingsJson = settingsJson;
    this.runId = runId;
  }

  /**
   * An episode's rewards, in the order of its score rows, with each row's {@code line}; or why
   * there are none.
   */
  record Scored(List<TurnReward> rewards, List<Long> lines, double[] advantages, String reject) {}

  /** Score rows are {@code (agent_id, turn, score, correct, line)}; correct may be null. */
  Scored score(List<Row> scores) {
    List<TurnScore> turns = new ArrayList<>();
    List<Long> lines = new ArrayList<>();
    for (Row row : scores) {
      turns.add(
          new TurnScore(
              row.getString(0),
              row.getInt(1),
              row.getDouble(2),
              row.isNullAt(3) ? null : row.getBoolean(3)));
      lines.add(row.isNullAt(4) ? null : row.getLong(4));
    }
    List<TurnReward> computed;
    try {
      computed = Rewards.episode(turns, settings);
    } catch (IllegalArgumentException e) {
      return new Scored(List.of(), List.of(), null, e.getMessage());
    }
    Map<String, TurnReward> byKey = new HashMap<>();
    for (TurnReward reward : computed) {
      byKey.put(reward.agentId() + "\u0000" + reward.turn(), reward);
    }
    List<TurnReward> ordered = new ArrayList<>();
    List<Double> values = new ArrayList<>();
    for (TurnScore turn : turns) {
      TurnReward reward = byKey.get(turn.agentId() + "\u0000" + turn.turn());
      ordered.add(reward);
      values.add(reward.reward());
    }
    double[] advantages = null;
    if (groupAdvantage) {
      List<Double> normalised = GroupAdvantages.normalise(values);
      advantages = normalised.stream().mapToDouble(Double::doubleValue).toArray();
    }
    return new Scored(ordered, lines, advantages, null);
  }

  /** Input rows: {@code (episode_id, question_id, discuss_run_id, scores)}. */
  @Override
  public Iterator<Row> call(Iterator<Row> episodes) {
    List<Row> out = new ArrayList<>();
    while (episodes.hasNext()) {
      Row episode = episodes.next();
      String episodeId = episode.getString(0);
      String questionId = episode.getString(1);
      String discussRun = episode.getString(2);
      List<Row> scores = episode.getList(3);
      Scored scored = score(scores);
      if (scored.reject() != null) {
        for (Row row : scores) {
          out.add(
              RowFactory.create(
                  settingsId,
                  settingsJson,
                  episodeId,
                  questionId,
                  row.getString(0),
                  row.getInt(1),
                  row.getDouble(2),
                  !row.isNullAt(3) && row.getBoolean(3),
                  0.0,
                  0.0,
                  0.0,
                  null,
                  discussRun,
                  runId,
                  scored.reject()));
        }
        continue;
      }
      for (int i = 0; i < scored.rewards().size(); i++) {
        TurnReward reward = scored.rewards().get(i);
        out.add(
            RowFactory.create(
                settingsId,
                settingsJson,
                episodeId,
                questionId,
                reward.agentId(),
                reward.turn(),
                reward.score(),
                reward.correct(),
                reward.base(),
                reward.bonus(),
                reward.reward(),
                scored.advantages() == null ? null : scored.advantages()[i],
                discussRun,
                runId,
                null));
      }
    }
    return out.iterator();
  }
}
