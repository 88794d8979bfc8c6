package dev.infuse.jobs.maporl;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;

/**
 * Flattens finished episodes into {@code rollouts} rows, one per agent and turn, in the contract's
 * column order. Failed episodes give none: they are quarantined whole.
 */
final class RolloutRows implements FlatMapFunction<Iterator<Row>, Row> {
  private static final long serialVersionUID = 1L;

  private final DiscussionSetup setup;
  private final String discussionId;
  private final String templateVersions;
  private final String runId;

  RolloutRows(DiscussionSetup setup, String discussionId, String templateVersions, String runId) {
    this.setup = setup;
    this.discussionId = discussionId;
    this.templateVersions = templateVersions;
    this.runId = runId;
  }

  /** Input rows are {@code (episode_id, state)}. */
  @Override
  public Iterator<Row> call(Iterator<Row> states) {
    List<Row> out = new ArrayList<>();
    while (states.hasNext()) {
      Episode episode = Episode.fromJson(states.next().getString(1));
      if (episode.failure() != null) {
        continue;
      }
      for (int agent = 0; agent < episode.turns().size(); agent++) {
        for (Episode.Turn turn : episode.turns().get(agent)) {
          out.add(
              RowFactory.create(
                  episode.episodeId(),
                  discussionId,
                  episode.questionId(),
                  episode.benchmark(),
                  episode.kind(),
                  setup.agentIds().get(agent),
                  setup.model(agent),
                  turn.turn(),
                  turn.messages(),
                  turn.response(),
                  turn.answer(),
                  turn.parseStatus(),
                  turn.correct(),
                  setup.verifier().id(),
                  turn.score(),
                  turn.penalty(),
                  turn.callKey(),
                  templateVersions,
                  setup.iteration(),
                  runId));
        }
      }
    }
    return out.iterator();
  }
}
