package dev.infuse.udfs.behavior.tasks;

import dev.infuse.udfs.behavior.BehaviorTask;
import dev.infuse.udfs.behavior.GoldTarget;
import dev.infuse.udfs.behavior.Turn;
import dev.infuse.udfs.behavior.score.BehaviorPrompts;
import dev.infuse.udfs.generate.GenerationTask;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The LLM-assisted conversation form of a behaviour task ({@code behavior.conversation=llm}): the
 * task's context is sent to a model ({@link GenerationTask#BEHAVIOR_CONVERSATION}, prompt {@code
 * behavior-conversation}) to be rewritten as clinicians talking, one {@code speaker: text} turn per
 * line. The gold label must stay true by construction, so a reply replaces the context only when it
 * passes this check ({@value #CHECK_ID} v{@value #CHECK_VERSION}), in this order:
 *
 * <ol>
 *   <li>every non-blank line is {@code speaker: text} (a speaker of at most four words, letters
 *       only), and there are at least two turns and two speakers;
 *   <li>{@code error}: every word of the wrong text that the corrected text lacks is still there;
 *       no word of the corrected text that the wrong text lacks appears unless the case already had
 *       it; a MEDEC sentence id is still labelled {@code Sentence N};
 *   <li>{@code omission}: no word of the removed value that the case lacks appears;
 *   <li>{@code conflict}: both values are still there (their numbers; all their words when they
 *       have no number);
 *   <li>{@code answer}: the answer, which the case never states, does not appear;
 *   <li>every number of the case is still there, and no other number appears.
 * </ol>
 *
 * Words and numbers are compared lower-cased; a number keeps its decimals ({@code 2.1}). A task
 * whose gold is read by position is not sent: temporal ordering's events are numbered as shown, and
 * a multiple-choice question's options are read by letter.
 *
 * <p>Every task of an llm-mode build records in {@code construction.conversation} what happened:
 * {@code llm:<prompt@version>} (with {@code conversation.generator} and {@code
 * conversation.check}), {@code rejected: <reason>}, or {@code not sent: <reason>}.
 */
public final class ConversationRewrite {
  public static final String CHECK_ID = "conversation-check";

  /** Bumped on any change to the check or the parser above. */
  public static final int CHECK_VERSION = 1;

  /** The construction key saying what became of the task's conversation. */
  public static final String KEY = "conversation";

  /** The construction key naming the model that was asked ({@code backend:model}). */
  public static final String GENERATOR_KEY = "conversation.generator";

  /** The construction key naming the check's version. */
  public static final String CHECK_KEY = "conversation.check";

  public static final String LLM_PREFIX = "llm:";
  public static final String REJECTED_PREFIX = "rejected: ";
  public static final String NOT_SENT_PREFIX = "not sent: ";

  private static final Pattern TURN =
      Pattern.compile("^\\s*(?:[-*]\\s+)?([A-Za-z][A-Za-z .'()/-]{0,39}?)\\s*:\\s*(\\S.*)$");
  private static final Pattern BOLD_SPEAKER =
      Pattern.compile("^(\\s*(?:[-*]\\s+)?)\\*\\*([^*:]{1,40})(?::\\*\\*|\\*\\*\\s*:)");
  private static final Pattern TOKEN = Pattern.compile("\\d+(?:\\.\\d+)?|\\p{L}+");

  /**
   * A task after its rewrite was judged.
   *
   * @param task the rewritten task when used, else the task as built, with construction saying why
   * @param used whether the rewrite replaced the context
   * @param reason why it was not used; null when used
   */
  public record Outcome(BehaviorTask task, boolean used, String reason) {}

  private ConversationRewrite() {}

  /** {@code id@vN}. */
  public static String checkTag() {
    return CHECK_ID + "@v" + CHECK_VERSION;
  }

  /** Why the task is not sent for a rewrite, or empty when it is. */
  public static Optional<String> notSent(BehaviorTask task) {
    GoldTarget gold = task.goldTarget();
    if (gold.kind().equals(GoldTarget.ORDER)) {
      return Optional.of("the events are read by the number they are shown with");
    }
    if (gold.kind().equals(GoldTarget.ANSWER) && isLetter(gold.answer())) {
      return Optional.of("the options are read by letter");
    }
    return Optional.empty();
  }

  /** The request's variables: the context, one {@code speaker: text} line per turn. */
  public static Map<String, String> variables(BehaviorTask task) {
    Map<String, String> vars = new LinkedHashMap<>();
    vars.put(GenerationTask.CONTEXT, BehaviorPrompts.context(task.context()));
    return vars;
  }

  /** The task as built, recording that it was not sent and why. */
  public static BehaviorTask keptUnsent(BehaviorTask task, String reason) {
    Map<String, String> construction = new LinkedHashMap<>(task.construction());
    construction.put(KEY, NOT_SENT_PREFIX + reason);
    return with(task, task.context(), construction);
  }

  /**
   * The task with {@code reply} as its context when the reply passes the check; otherwise the task
   * as built, recording why.
   *
   * @param prompt the prompt's {@code id@version}
   * @param generator the model asked, {@code backend:model}
   */
  public static Outcome apply(BehaviorTask task, String reply, String prompt, String generator) {
    Map<String, String> construction = new LinkedHashMap<>(task.construction());
    construction.put(GENERATOR_KEY, generator);
    construction.put(CHECK_KEY, checkTag());
    String reason;
    try {
      List<Turn> turns = parse(reply);
      Optional<String> problem = problem(task, turns);
      if (problem.isEmpty()) {
        construction.put(KEY, LLM_PREFIX + prompt);
        if (construction.containsKey("form")) {
          construction.put("form", "conversation");
        }
        return new Outcome(with(task, turns, construction), true, null);
      }
      reason = problem.get();
    } catch (IllegalArgumentException e) {
      reason = e.getMessage();
    }
    construction.put(KEY, REJECTED_PREFIX + reason);
    return new Outcome(with(task, task.context(), construction), false, reason);
  }

  /**
   * The turns of a reply, one per non-blank line {@code speaker: text}; speakers lower-cased, a
   * bold speaker ({@code **Nurse:**}) read as plain.
   *
   * @throws IllegalArgumentException naming the first line that is not a turn
   */
  public static List<Turn> parse(String reply) {
    List<Turn> turns = new ArrayList<>();
    String[] lines = reply == null ? new String[0] : reply.split("\\R");
    for (int i = 0; i < lines.length; i++) {
      String line = BOLD_SPEAKER.matcher(lines[i]).replaceFirst("$1$2:");
      if (line.isBlank()) {
        continue;
      }
      Matcher m = TURN.matcher(line);
      if (!m.matches() || m.group(1).strip().split("\\s+").length > 4) {
        String shown = line.strip();
        throw new IllegalArgumentException(
            "line "
                + (i + 1)
                + " is not 'speaker: text': '"
                + (shown.length() > 60 ? shown.substring(0, 60) + "…" : shown)
                + "'");
      }
      turns.add(new Turn(m.group(1).strip().toLowerCase(Locale.ROOT), m.group(2).strip()));
    }
    return turns;
  }

  /** Why {@code turns} cannot stand for the task's context, or empty when they can. */
  public static Optional<String> problem(BehaviorTask task, List<Turn> turns) {
    if (turns.size() < 2) {
      return Optional.of("got " + turns.size() + " turn(s), expected at least two");
    }
    Set<String> speakers = new LinkedHashSet<>();
    turns.forEach(t -> speakers.add(t.speaker()));
    if (speakers.size() < 2) {
      return Optional.of(
          "one speaker only ("
              + speakers.iterator().next()
              + "), expected a conversation among clinicians");
    }
    String original = BehaviorPrompts.context(task.context());
    String rewrite = BehaviorPrompts.context(turns);
    Set<String> before = tokens(original);
    Set<String> after = tokens(rewrite);
    GoldTarget gold = task.goldTarget();
    Optional<String> kind =
        switch (gold.kind()) {
          case GoldTarget.ERROR -> error(gold, before, after, rewrite);
          case GoldTarget.OMISSION -> omission(gold, before, after);
          case GoldTarget.CONFLICT -> conflict(gold, after);
          case GoldTarget.ANSWER -> answer(gold, original, rewrite);
          default -> Optional.empty();
        };
    if (kind.isPresent()) {
      return kind;
    }
    for (String number : numbers(before)) {
      if (!after.contains(number)) {
        return Optional.of("a number of the case is missing: '" + number + "'");
      }
    }
    for (String number : numbers(after)) {
      if (!before.contains(number)) {
        return Optional.of("adds a number the case does not have: '" + number + "'");
      }
    }
    return Optional.empty();
  }

  private static Optional<String> error(
      GoldTarget gold, Set<String> before, Set<String> after, String rewrite) {
    Set<String> wrong = tokens(gold.wrong());
    Set<String> corrected = tokens(gold.corrected());
    for (String word : wrong) {
      if (!corrected.contains(word) && !after.contains(word)) {
        return Optional.of("the error is gone: '" + word + "' of the wrong text is missing");
      }
    }
    for (String word : corrected) {
      if (!wrong.contains(word) && !before.contains(word) && after.contains(word)) {
        return Optional.of("the correction appears: '" + word + "' is not in the case");
      }
    }
    Integer id = gold.sentenceId();
    if (id != null
        && id >= 0
        && !Pattern.compile("(?i)\\bsentence\\s+" + id + "\\b").matcher(rewrite).find()) {
      return Optional.of(
          "sentence " + id + " (the wrong one) is no longer labelled 'Sentence " + id + "'");
    }
    return Optional.empty();
  }

  private static Optional<String> omission(GoldTarget gold, Set<String> before, Set<String> after) {
    for (String word : tokens(gold.value())) {
      if (!before.contains(word) && after.contains(word)) {
        return Optional.of("the omitted value appears: '" + word + "'");
      }
    }
    return Optional.empty();
  }

  private static Optional<String> conflict(GoldTarget gold, Set<String> after) {
    for (String value : new String[] {gold.first(), gold.second()}) {
      Set<String> words = tokens(value);
      Set<String> numbers = numbers(words);
      for (String word : numbers.isEmpty() ? words : numbers) {
        if (!after.contains(word)) {
          return Optional.of(
              "a conflicting value is gone: '" + word + "' of '" + value.strip() + "'");
        }
      }
    }
    return Optional.empty();
  }

  private static Optional<String> answer(GoldTarget gold, String original, String rewrite) {
    String answer = gold.text() != null ? gold.text() : gold.answer();
    String phrase = phrase(answer);
    if (!phrase.isEmpty()
        && phrase(rewrite).contains(phrase)
        && !phrase(original).contains(phrase)) {
      return Optional.of("the answer appears: '" + answer.strip() + "'");
    }
    return Optional.empty();
  }

  /** Lower-cased words and numbers, in order of first appearance. */
  static Set<String> tokens(String text) {
    Set<String> tokens = new LinkedHashSet<>();
    if (text == null) {
      return tokens;
    }
    Matcher m = TOKEN.matcher(text.toLowerCase(Locale.ROOT));
    while (m.find()) {
      tokens.add(m.group());
    }
    return tokens;
  }

  private static Set<String> numbers(Set<String> tokens) {
    Set<String> numbers = new LinkedHashSet<>();
    for (String token : tokens) {
      if (Character.isDigit(token.charAt(0))) {
        numbers.add(token);
      }
    }
    return numbers;
  }

  /** The text's tokens joined by single spaces, with a space at each end, for phrase search. */
  private static String phrase(String text) {
    List<String> all = new ArrayList<>();
    if (text != null) {
      Matcher m = TOKEN.matcher(text.toLowerCase(Locale.ROOT));
      while (m.find()) {
        all.add(m.group());
      }
    }
    return all.isEmpty() ? "" : " " + String.join(" ", all) + " ";
  }

  private static boolean isLetter(String answer) {
    String a = answer == null ? "" : answer.strip();
    return a.length() == 1 && Character.isLetter(a.charAt(0));
  }

  private static BehaviorTask with(
      BehaviorTask task, List<Turn> context, Map<String, String> construction) {
    return new BehaviorTask(
        task.taskId(),
        task.category(),
        task.type(),
        task.source(),
        task.sourceRecordId(),
        context,
        task.query(),
        task.goldBehavior(),
        task.goldTarget(),
        construction,
        task.perturbationId(),
        task.perturbationVersion(),
        task.seed());
  }
}
