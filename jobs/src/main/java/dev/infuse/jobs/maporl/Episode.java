package dev.infuse.jobs.maporl;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * One discussion as it stands between turns: the question and, per agent, every turn so far. It
 * travels between the turns' Spark stages as JSON in one column, so the driver never holds the
 * discussions; the rollouts rows are flattened from it at the end.
 *
 * @param turns per agent (in the order of {@code discuss.agents}), its turns so far
 * @param finished no more turns: consensus reached, or a call failed ({@code failure} says why)
 */
public record Episode(
    String episodeId,
    String questionId,
    String benchmark,
    String kind,
    String question,
    List<String> options,
    String gold,
    List<List<Turn>> turns,
    boolean finished,
    String failure) {

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * One agent's turn.
   *
   * @param messages the chat messages sent, as JSON
   * @param userMessage this turn's user message (the agent's history repeats it later)
   * @param penalty why the non-EOS penalty replaced the score; null when it did not
   */
  public record Turn(
      int turn,
      String callKey,
      String messages,
      String userMessage,
      String response,
      String answer,
      String parseStatus,
      boolean correct,
      double score,
      String penalty) {}

  public Episode {
    options = options == null ? List.of() : List.copyOf(options);
  }

  /** A discussion that has not started, with an empty history for each of {@code agents}. */
  public static Episode start(
      String episodeId,
      String questionId,
      String benchmark,
      String kind,
      String question,
      List<String> options,
      String gold,
      int agents) {
    List<List<Turn>> empty = new ArrayList<>();
    for (int i = 0; i < agents; i++) {
      empty.add(List.of());
    }
    return new Episode(
        episodeId, questionId, benchmark, kind, question, options, gold, empty, false, null);
  }

  /** The turns played so far (every agent has played the same number). */
  public int turnsPlayed() {
    return turns.isEmpty() ? 0 : turns.get(0).size();
  }

  /** This episode with one more turn per agent, {@code next.get(i)} for agent i. */
  public Episode plus(List<Turn> next, boolean stop) {
    List<List<Turn>> grown = new ArrayList<>();
    for (int i = 0; i < turns.size(); i++) {
      List<Turn> agent = new ArrayList<>(turns.get(i));
      agent.add(next.get(i));
      grown.add(List.copyOf(agent));
    }
    return new Episode(
        episodeId, questionId, benchmark, kind, question, options, gold, grown, stop, null);
  }

  /** This episode ended by a failure: its turns are not written, and it goes to quarantine. */
  public Episode failed(String reason) {
    return new Episode(
        episodeId, questionId, benchmark, kind, question, options, gold, turns, true, reason);
  }

  public String toJson() {
    try {
      return JSON.writeValueAsString(this);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static Episode fromJson(String json) {
    try {
      return JSON.readValue(json, Episode.class);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException("episode state does not parse: " + e.getOriginalMessage(), e);
    }
  }
}
