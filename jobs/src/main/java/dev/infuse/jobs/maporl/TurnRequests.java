package dev.infuse.jobs.maporl;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.infuse.jobs.llm.LlmCallRunner;
import dev.infuse.udfs.generate.GenerationTask;
import dev.infuse.udfs.llm.ChatMessage;
import dev.infuse.udfs.llm.ChatRequest;
import dev.infuse.udfs.llm.GenerationParams;
import dev.infuse.udfs.llm.LlmSettings;
import dev.infuse.udfs.llm.RequestKeys;
import dev.infuse.udfs.maporl.AgentTurn;
import dev.infuse.udfs.maporl.DiscussionPrompts;
import dev.infuse.udfs.maporl.PeerAnswer;
import dev.infuse.udfs.maporl.QuestionKind;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The requests of one turn, on the executors: for every unfinished episode and every agent, the
 * agent's own history followed by this turn's message (turn 0: the question; later: the others'
 * latest answers, with scores when feedback is on), as a keyed chat request routed to the agent's
 * client.
 */
final class TurnRequests implements FlatMapFunction<Iterator<Row>, Row> {
  private static final long serialVersionUID = 1L;
  private static final ObjectMapper JSON = new ObjectMapper();

  static final StructType SCHEMA =
      new StructType()
          .add("episode_id", DataTypes.StringType, false)
          .add("agent_index", DataTypes.IntegerType, false)
          .add("call_key", DataTypes.StringType, false)
          .add("chat_request", DataTypes.StringType, false)
          .add("canonical_request", DataTypes.StringType, false)
          .add(LlmCallRunner.CLIENT_COLUMN, DataTypes.IntegerType, false)
          .add("messages", DataTypes.StringType, false)
          .add("user_message", DataTypes.StringType, false);

  private final DiscussionSetup setup;

  TurnRequests(DiscussionSetup setup) {
    this.setup = setup;
  }

  /** Input rows are {@code (episode_id, state)}. */
  @Override
  public Iterator<Row> call(Iterator<Row> states) throws JsonProcessingException {
    DiscussionPrompts prompts = setup.prompts();
    List<Row> out = new ArrayList<>();
    while (states.hasNext()) {
      Episode episode = Episode.fromJson(states.next().getString(1));
      if (episode.finished()) {
        continue;
      }
      for (int agent = 0; agent < setup.agents(); agent++) {
        out.add(request(prompts, episode, agent));
      }
    }
    return out.iterator();
  }

  private Row request(DiscussionPrompts prompts, Episode episode, int agent)
      throws JsonProcessingException {
    int turn = episode.turnsPlayed();
    QuestionKind kind = QuestionKind.fromName(episode.kind());
    List<Episode.Turn> own = episode.turns().get(agent);
    String userMessage;
    List<String> peerAnswers = new ArrayList<>();
    if (turn == 0) {
      userMessage = prompts.firstMessage(episode.question(), kind, episode.options());
    } else {
      List<PeerAnswer> others = new ArrayList<>();
      for (int other = 0; other < setup.agents(); other++) {
        if (other == agent) {
          continue;
        }
        Episode.Turn latest = last(episode.turns().get(other));
        others.add(
            new PeerAnswer(
                setup.agentIds().get(other),
                latest.response(),
                setup.feedback() ? latest.score() : null));
        peerAnswers.add(latest.answer());
      }
      userMessage =
          prompts.discussMessage(
              episode.question(),
              kind,
              episode.options(),
              others,
              setup.feedback() ? last(own).score() : null);
    }
    List<AgentTurn> history = new ArrayList<>();
    for (Episode.Turn earlier : own) {
      history.add(new AgentTurn(earlier.userMessage(), earlier.response()));
    }
    List<ChatMessage> messages = prompts.conversation(history, userMessage);
    LlmSettings client = setup.clients().get(agent);
    // The model-free backend answers from these inputs alone; HTTP and djl backends ignore them.
    Map<String, String> task = new LinkedHashMap<>();
    task.put(GenerationTask.KIND, GenerationTask.DISCUSS);
    task.put(GenerationTask.QUESTION, episode.question());
    task.put(GenerationTask.QUESTION_KIND, kind.id());
    task.put(GenerationTask.OPTIONS, JSON.writeValueAsString(episode.options()));
    task.put(GenerationTask.TURN, Integer.toString(turn));
    task.put(GenerationTask.OWN_ANSWER, turn == 0 ? "" : last(own).answer());
    task.put(GenerationTask.PEER_ANSWERS, JSON.writeValueAsString(peerAnswers));
    ChatRequest request =
        new ChatRequest(
            client.model(),
            messages,
            new GenerationParams(
                setup.maxTokens().get(agent),
                setup.temperatures().get(agent),
                setup.topPs().get(agent),
                1,
                List.of(),
                setup.seed(episode.episodeId(), agent, turn),
                false,
                null),
            task);
    String backend = client.backend().id();
    try {
      return RowFactory.create(
          episode.episodeId(),
          agent,
          RequestKeys.key(backend, request),
          JSON.writeValueAsString(request),
          RequestKeys.canonicalJson(backend, request),
          agent,
          JSON.writeValueAsString(messages),
          userMessage);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Episode.Turn last(List<Episode.Turn> turns) {
    return turns.get(turns.size() - 1);
  }
}
