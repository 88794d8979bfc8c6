package dev.infuse.udfs.maporl;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.infuse.udfs.generate.GenerationTask;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A model-free discussant for the {@code extractive} backend's {@link GenerationTask#DISCUSS} task,
 * so a MAPoRL discussion runs end to end without a model. Deterministic given the task map and the
 * random stream (which the backend seeds from the request seed and the task).
 *
 * <ul>
 *   <li>Turn 0: a cheap guess, drawn from the stream so that agents with different seeds can
 *       disagree. GSM8K: one of the last number in the question, the sum of all its numbers, the
 *       product of the last two, the difference of the last two (0 when it has no number). ANLI:
 *       one of the three labels. MCQ: either the option sharing most words with the question or a
 *       random option letter (A–D when no options are given).
 *   <li>Turn t >= 1: the most common valid answer among its own previous answer and the peers'
 *       ({@code invalid} and empty ones left out); a tie that includes its own answer keeps it,
 *       other ties take the one named first among the peers. With no valid answer at all it guesses
 *       as at turn 0.
 * </ul>
 *
 * <p>The output is a reasoning line that says it is model-free, then {@code Answer: \boxed{X}}.
 */
public final class ExtractiveDiscussant {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern NUMBER = Pattern.compile("-?\\d[\\d,]*(?:\\.\\d+)?");
  private static final Pattern WORD = Pattern.compile("[\\p{L}\\p{N}]+");
  private static final List<String> LABELS = List.of("entailment", "neutral", "contradiction");

  private ExtractiveDiscussant() {}

  /**
   * The task map of one turn: {@link GenerationTask#KIND} plus the discuss variables.
   *
   * @param ownAnswer the agent's parsed answer at turn - 1 (null or empty at turn 0)
   * @param peerAnswers the other agents' parsed answers at turn - 1 (empty at turn 0)
   */
  public static Map<String, String> task(
      String question,
      QuestionKind kind,
      List<String> options,
      int turn,
      String ownAnswer,
      List<String> peerAnswers) {
    Map<String, String> task = new LinkedHashMap<>();
    task.put(GenerationTask.KIND, GenerationTask.DISCUSS);
    task.put(GenerationTask.QUESTION, question);
    task.put(GenerationTask.QUESTION_KIND, kind.id());
    task.put(GenerationTask.OPTIONS, options == null || options.isEmpty() ? "" : toJson(options));
    task.put(GenerationTask.TURN, Integer.toString(turn));
    task.put(GenerationTask.OWN_ANSWER, ownAnswer == null ? "" : ownAnswer);
    task.put(GenerationTask.PEER_ANSWERS, toJson(peerAnswers == null ? List.of() : peerAnswers));
    return task;
  }

  /**
   * The response to one discuss task.
   *
   * @throws IllegalArgumentException naming the variable that is missing or malformed
   */
  public static String respond(Map<String, String> task, SplittableRandom rng) {
    String question = task.get(GenerationTask.QUESTION);
    if (question == null || question.isBlank()) {
      throw new IllegalArgumentException("question: missing, expected non-blank text");
    }
    QuestionKind kind;
    try {
      kind = QuestionKind.fromName(task.get(GenerationTask.QUESTION_KIND));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("question_kind: " + e.getMessage(), e);
    }
    List<String> options = strings(task, GenerationTask.OPTIONS);
    int turn = turn(task.get(GenerationTask.TURN));
    String own = task.getOrDefault(GenerationTask.OWN_ANSWER, "").strip();
    List<String> peers = strings(task, GenerationTask.PEER_ANSWERS);
    String answer;
    String reason;
    if (turn == 0) {
      answer = guess(question, kind, options, rng);
      reason = "a first guess from the question alone";
    } else {
      answer = majority(own, peers);
      if (answer == null) {
        answer = guess(question, kind, options, rng);
        reason = "no valid earlier answer to follow, so a fresh guess";
      } else if (answer.equals(own)) {
        reason = "keeping my answer, which no other answer outnumbers";
      } else {
        reason = "adopting the answer most agents gave";
      }
    }
    return "Model-free discussant (extractive backend, no model was run); turn "
        + turn
        + ": "
        + reason
        + ".\n\nAnswer: \\boxed{"
        + answer
        + "}";
  }

  /** The most common valid answer; ties keep {@code own}, else the first peer's. Null if none. */
  static String majority(String own, List<String> peers) {
    Map<String, Integer> counts = new LinkedHashMap<>();
    if (valid(own)) {
      counts.merge(own, 1, Integer::sum);
    }
    for (String peer : peers) {
      if (valid(peer)) {
        counts.merge(peer.strip(), 1, Integer::sum);
      }
    }
    if (counts.isEmpty()) {
      return null;
    }
    int max = counts.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    if (valid(own) && counts.get(own) == max) {
      return own;
    }
    for (Map.Entry<String, Integer> entry : counts.entrySet()) {
      if (entry.getValue() == max) {
        return entry.getKey();
      }
    }
    return null;
  }

  private static boolean valid(String answer) {
    return answer != null && !answer.isBlank() && !answer.strip().equals(ExtractedAnswer.INVALID);
  }

  static String guess(
      String question, QuestionKind kind, List<String> options, SplittableRandom rng) {
    return switch (kind) {
      case GSM8K -> {
        List<String> candidates = arithmeticGuesses(question);
        yield candidates.get(rng.nextInt(candidates.size()));
      }
      case ANLI -> LABELS.get(rng.nextInt(LABELS.size()));
      case MCQ -> {
        int count = options.isEmpty() ? 4 : Math.min(options.size(), 26);
        char random = (char) ('A' + rng.nextInt(count));
        char overlap = options.isEmpty() ? random : mostOverlap(question, options);
        yield String.valueOf(rng.nextBoolean() ? overlap : random);
      }
    };
  }

  /** Last number, sum, product of the last two, difference of the last two; "0" with none. */
  static List<String> arithmeticGuesses(String question) {
    List<BigDecimal> numbers = new ArrayList<>();
    Matcher matcher = NUMBER.matcher(question);
    while (matcher.find()) {
      numbers.add(new BigDecimal(matcher.group().replace(",", "")));
    }
    if (numbers.isEmpty()) {
      return List.of("0");
    }
    List<BigDecimal> values = new ArrayList<>();
    BigDecimal last = numbers.get(numbers.size() - 1);
    values.add(last);
    values.add(numbers.stream().reduce(BigDecimal.ZERO, BigDecimal::add));
    if (numbers.size() >= 2) {
      BigDecimal before = numbers.get(numbers.size() - 2);
      values.add(before.multiply(last));
      values.add(before.subtract(last).abs());
    }
    List<String> out = new ArrayList<>();
    for (BigDecimal value : values) {
      out.add(value.signum() == 0 ? "0" : value.stripTrailingZeros().toPlainString());
    }
    return out;
  }

  private static char mostOverlap(String question, List<String> options) {
    Set<String> questionWords = words(question);
    int best = 0;
    int bestCount = -1;
    for (int i = 0; i < Math.min(options.size(), 26); i++) {
      Set<String> optionWords = words(options.get(i));
      optionWords.retainAll(questionWords);
      if (optionWords.size() > bestCount) {
        best = i;
        bestCount = optionWords.size();
      }
    }
    return (char) ('A' + best);
  }

  private static Set<String> words(String text) {
    Set<String> words = new HashSet<>();
    Matcher matcher = WORD.matcher(text.toLowerCase(Locale.ROOT));
    while (matcher.find()) {
      words.add(matcher.group());
    }
    return words;
  }

  private static int turn(String value) {
    try {
      int turn = Integer.parseInt(value == null ? "" : value.strip());
      if (turn >= 0) {
        return turn;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException("turn: got " + value + ", expected an integer >= 0");
  }

  /** A JSON array of strings; an absent or blank value is the empty list. */
  private static List<String> strings(Map<String, String> task, String name) {
    String value = task.get(name);
    if (value == null || value.isBlank()) {
      return List.of();
    }
    JsonNode tree;
    try {
      tree = JSON.readTree(value);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          name
              + ": not valid JSON ("
              + e.getOriginalMessage()
              + "), expected a JSON array of strings");
    }
    if (tree == null || !tree.isArray()) {
      throw new IllegalArgumentException(
          name + ": got " + value + ", expected a JSON array of strings");
    }
    List<String> items = new ArrayList<>();
    for (JsonNode item : tree) {
      if (!item.isTextual()) {
        throw new IllegalArgumentException(
            name + ": item " + item + " is not a string, expected a JSON array of strings");
      }
      items.add(item.asText());
    }
    return items;
  }

  private static String toJson(List<String> values) {
    try {
      return JSON.writeValueAsString(values);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a list of strings always serializes", e);
    }
  }
}
