package dev.infuse.udfs.behavior.score;

import dev.infuse.udfs.generate.GenerationTask;
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
 * A model-free clinician for the {@code extractive} backend's {@link GenerationTask#BEHAVE} task,
 * so behaviour mode runs end to end without a model. It decides from the context alone, in this
 * order:
 *
 * <ol>
 *   <li>a <b>conflict</b> when one finding (pulse, blood pressure, temperature, …) is written with
 *       two different values: {@code <proactive> Conflict: pulse: 88 vs 120.}
 *   <li>an <b>error</b> when a vital sign or lab value lies outside a small table of plausible
 *       ranges ({@link Readings}): {@code <proactive> Sentence N is wrong: <sentence>.} plus why
 *       (it cannot know the right value, so it offers no correction);
 *   <li>else, asked what to do with the patient (a next step, management, a plan),
 *       <b>restraint</b>: it checked the record, says nothing needs flagging, and answers;
 *   <li>else, with another query, a <b>reactive</b> answer: the option (in the query or listed at
 *       the end of the context) sharing most words with the rest of the context ({@code Answer: B.
 *       <text>}), or without options the context sentence sharing most words with the query;
 *   <li>else (no query) <b>restraint</b>.
 * </ol>
 *
 * <p>Every reply says it is model-free. It does not detect medical reasoning errors (MEDEC's wrong
 * diagnoses or treatments): a rule table cannot, and it does not pretend to. Deterministic: the
 * random stream is accepted for the backend's signature but never drawn from.
 */
public final class ExtractiveClinician {
  /** The note every reply ends with. */
  public static final String MODEL_FREE_NOTE =
      "(Model-free rule checker on the extractive backend: no model was run. It compares repeated"
          + " findings and checks values against a small plausibility table, and cannot judge"
          + " medical reasoning.)";

  private static final String NOTHING_TO_FLAG = "Nothing in the record needs flagging.";

  /** A query that asks what to do with the patient (management), not a factual question. */
  private static final Pattern ASKS_TO_ACT =
      Pattern.compile("(?i)\\b(?:next step|management|plan|what (?:should|would) you do)\\b");

  private static final Pattern OPTION = Pattern.compile("^\\s*\\(?([A-Z])[.):]\\s+(\\S.*)$");
  private static final Pattern WORD = Pattern.compile("[\\p{L}\\p{N}]+");

  private ExtractiveClinician() {}

  /**
   * The reply to one behave task.
   *
   * @throws IllegalArgumentException when {@code context} is missing or blank
   */
  public static String respond(Map<String, String> task, SplittableRandom rng) {
    String context = task.get(GenerationTask.CONTEXT);
    if (context == null || context.isBlank()) {
      throw new IllegalArgumentException("context: missing, expected the task's turns");
    }
    String query = task.getOrDefault(GenerationTask.QUERY, "").strip();
    List<NumberedSentences.Sentence> sentences = NumberedSentences.of(context);
    List<Readings.Reading> readings = Readings.in(sentences);
    String flag = conflict(readings);
    if (flag == null) {
      flag = implausible(readings);
    }
    if (flag != null) {
      return "<proactive> " + flag + "\n\n" + MODEL_FREE_NOTE;
    }
    if (query.isEmpty()) {
      return "<restraint> " + NOTHING_TO_FLAG + "\n\n" + MODEL_FREE_NOTE;
    }
    if (ASKS_TO_ACT.matcher(query).find()) {
      // Asked to act on a record it checked and found clean: say so, then answer (restraint).
      return "<restraint> "
          + NOTHING_TO_FLAG
          + " "
          + answer(query, context, sentences)
          + "\n\n"
          + MODEL_FREE_NOTE;
    }
    return "<reactive> " + answer(query, context, sentences) + "\n\n" + MODEL_FREE_NOTE;
  }

  /** The first finding seen with two different values, or null. */
  static String conflict(List<Readings.Reading> readings) {
    Map<String, Readings.Reading> first = new LinkedHashMap<>();
    for (Readings.Reading reading : readings) {
      Readings.Reading seen = first.putIfAbsent(reading.finding(), reading);
      if (seen != null && !seen.normalized().equals(reading.normalized())) {
        return "Conflict: "
            + reading.finding()
            + ": "
            + seen.value()
            + " vs "
            + reading.value()
            + ".";
      }
    }
    return null;
  }

  /** The first implausible reading as an error flag, or null. */
  static String implausible(List<Readings.Reading> readings) {
    for (Readings.Reading reading : readings) {
      String why = Readings.implausible(reading);
      if (why != null) {
        return "Sentence "
            + reading.at().id()
            + " is wrong: "
            + withoutFinalStop(reading.at().text())
            + ". "
            + Character.toUpperCase(why.charAt(0))
            + why.substring(1)
            + ".";
      }
    }
    return null;
  }

  /** "Answer: X. text" for lettered options, else "Answer: <best context sentence>". */
  static String answer(String query, String context, List<NumberedSentences.Sentence> sentences) {
    // Options may be asked in the query or listed at the end of the context (MedQA vignettes);
    // an option is scored against the context without the option lines themselves.
    List<String> optionLines = new ArrayList<>();
    StringBuilder withoutOptions = new StringBuilder();
    for (String line : (context + "\n" + query).split("\\R")) {
      if (OPTION.matcher(line).matches()) {
        optionLines.add(line);
      } else {
        withoutOptions.append(line).append('\n');
      }
    }
    Set<String> contextWords = words(withoutOptions.toString());
    char bestLetter = 0;
    String bestText = null;
    int bestCount = -1;
    for (String line : optionLines) {
      Matcher m = OPTION.matcher(line);
      if (m.matches()) {
        Set<String> option = words(m.group(2));
        option.retainAll(contextWords);
        if (option.size() > bestCount) {
          bestCount = option.size();
          bestLetter = m.group(1).charAt(0);
          bestText = m.group(2).strip();
        }
      }
    }
    if (bestText != null) {
      return "Answer: " + bestLetter + ". " + bestText;
    }
    Set<String> queryWords = words(query);
    String best = sentences.isEmpty() ? context.strip() : sentences.get(0).text();
    bestCount = -1;
    for (NumberedSentences.Sentence sentence : sentences) {
      Set<String> shared = words(sentence.text());
      shared.retainAll(queryWords);
      if (shared.size() > bestCount) {
        bestCount = shared.size();
        best = sentence.text();
      }
    }
    return "Answer: " + best;
  }

  private static String withoutFinalStop(String text) {
    String out = text.strip();
    while (out.endsWith(".")) {
      out = out.substring(0, out.length() - 1);
    }
    return out;
  }

  private static Set<String> words(String text) {
    Set<String> words = new HashSet<>();
    Matcher matcher = WORD.matcher(text.toLowerCase(Locale.ROOT));
    while (matcher.find()) {
      words.add(matcher.group());
    }
    return words;
  }
}
