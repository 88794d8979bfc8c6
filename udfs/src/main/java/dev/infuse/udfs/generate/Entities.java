package dev.infuse.udfs.generate;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Model-free named-entity candidates: runs of capitalised words ("Earth Central", "Comity of
 * Planets", "Tr'en"). A capital at the start of a sentence or quotation says nothing, so such a run
 * counts only if the same name also appears mid-sentence or starts two sentences; pronouns, days,
 * months, titles and common sentence openers never count. Ranked by frequency, it finds the
 * characters and places a reader would list, without a tagger model.
 */
public final class Entities {
  private static final Pattern TOKEN =
      Pattern.compile("(?:\\p{Lu}\\.){2,}|[\\p{L}\\p{N}][\\p{L}\\p{N}'’\\-]*");
  private static final Set<String> CONNECTORS =
      Set.of("of", "de", "du", "da", "del", "von", "van", "der", "la", "le");
  private static final Set<String> NOT_NAMES =
      Set.of(
          "monday",
          "tuesday",
          "wednesday",
          "thursday",
          "friday",
          "saturday",
          "sunday",
          "january",
          "february",
          "march",
          "april",
          "june",
          "july",
          "august",
          "september",
          "october",
          "november",
          "december",
          "mr",
          "mrs",
          "ms",
          "dr",
          "sir",
          "madam",
          "ma'am",
          "miss",
          "oh",
          "ah",
          "yes",
          "yeah",
          "well",
          "okay",
          "ok",
          "hey",
          "please",
          "thank",
          "thanks",
          "sure",
          "right",
          "however",
          "meanwhile",
          "suddenly",
          "perhaps",
          "maybe",
          "instead",
          "besides",
          "anyway",
          "although",
          "though",
          "while",
          "because",
          "unless",
          "since",
          "until",
          "whatever",
          "whenever",
          "nothing",
          "everything",
          "something",
          "anything",
          "everyone",
          "someone",
          "nobody",
          "somebody",
          "anyone",
          "everybody",
          "good",
          "chapter",
          "illustrated",
          "like",
          "first",
          "finally",
          "later",
          "soon",
          "sometimes",
          "often",
          "look",
          "listen",
          "come",
          "go",
          "see",
          "tell",
          "don't",
          "didn't",
          "can't",
          "won't",
          "i'm",
          "i'll",
          "i'd",
          "i've",
          "it's",
          "that's",
          "there's",
          "what's",
          "he's",
          "she's",
          "let's",
          "we'll",
          "you'll",
          "you're");
  private static final Pattern CONTRACTION = Pattern.compile("'(?:s|d|ll|ve|re|m|t)$|n't$");
  private static final Set<Character> OPENERS =
      Set.of('"', '“', '‘', '\'', '(', '[', '«', ':', '—', '-', ';');

  /**
   * A candidate entity with how often it occurs.
   *
   * @param firstSentence the index of the first sentence it occurs in
   */
  public record Entity(String name, int count, int firstSentence) {}

  /**
   * One capitalised run inside a sentence's text.
   *
   * @param initial whether it starts the sentence or a quotation, where a capital proves nothing
   */
  public record Span(String text, int start, int end, boolean initial) {}

  private Entities() {}

  /**
   * The {@code max} most frequent entities of the sentences, most frequent first (ties: first seen
   * first).
   */
  public static List<Entity> extract(List<Sentence> sentences, int max) {
    Map<String, int[]> stats =
        new LinkedHashMap<>(); // name -> {total, midSentence, atStart, firstSentence}
    for (Sentence sentence : sentences) {
      for (Span span : spans(sentence.text())) {
        int[] s = stats.computeIfAbsent(span.text(), k -> new int[] {0, 0, 0, sentence.index()});
        s[0]++;
        s[span.initial() ? 2 : 1]++;
      }
    }
    List<Entity> entities = new ArrayList<>();
    stats.forEach(
        (name, s) -> {
          if (s[1] >= 1 || s[2] >= 2) {
            entities.add(new Entity(name, s[0], s[3]));
          }
        });
    entities.sort(
        Comparator.comparingInt((Entity e) -> -e.count()).thenComparingInt(Entity::firstSentence));
    return List.copyOf(entities.subList(0, Math.min(Math.max(0, max), entities.size())));
  }

  /** The capitalised runs of one sentence's text, with possessives and edge stop-words trimmed. */
  public static List<Span> spans(String text) {
    List<int[]> tokens = new ArrayList<>();
    Matcher matcher = TOKEN.matcher(text);
    while (matcher.find()) {
      tokens.add(new int[] {matcher.start(), matcher.end()});
    }
    List<Span> spans = new ArrayList<>();
    int i = 0;
    while (i < tokens.size()) {
      if (!capitalised(text, tokens.get(i))) {
        i++;
        continue;
      }
      List<int[]> run = new ArrayList<>();
      run.add(tokens.get(i));
      int j = i + 1;
      while (j < tokens.size()
          && !possessive(text, run.get(run.size() - 1))
          && singleSpace(text, tokens.get(j - 1), tokens.get(j))) {
        int[] token = tokens.get(j);
        if (capitalised(text, token)) {
          run.add(token);
          j++;
        } else if (CONNECTORS.contains(word(text, token))
            && j + 1 < tokens.size()
            && singleSpace(text, token, tokens.get(j + 1))
            && capitalised(text, tokens.get(j + 1))) {
          run.add(token);
          j++;
        } else {
          break;
        }
      }
      boolean initial = isInitial(text, tokens, i);
      addTrimmed(text, run, initial, spans);
      i = j;
    }
    return spans;
  }

  /** Whether {@code text} mentions {@code entity} as whole words, ignoring case. */
  public static boolean mentions(String text, String entity) {
    return mentionPattern(entity).matcher(text).find();
  }

  /** A pattern matching {@code entity} as whole words, ignoring case. */
  public static Pattern mentionPattern(String entity) {
    return Pattern.compile(
        "(?<![\\p{L}\\p{N}])" + Pattern.quote(entity.strip()) + "(?![\\p{L}\\p{N}])",
        Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE);
  }

  private static void addTrimmed(String text, List<int[]> run, boolean initial, List<Span> out) {
    int from = 0;
    int to = run.size();
    while (from < to
        && (notName(text, run.get(from)) || CONNECTORS.contains(word(text, run.get(from))))) {
      from++;
    }
    while (to > from
        && (notName(text, run.get(to - 1)) || CONNECTORS.contains(word(text, run.get(to - 1))))) {
      to--;
    }
    if (from >= to) {
      return;
    }
    int start = run.get(from)[0];
    int end = run.get(to - 1)[1];
    String last = text.substring(run.get(to - 1)[0], end);
    if (last.endsWith("'s") || last.endsWith("’s")) {
      end -= 2;
    } else if (last.endsWith("'") || last.endsWith("’") || last.endsWith("-")) {
      end -= 1;
    }
    if (end <= start) {
      return;
    }
    out.add(new Span(text.substring(start, end), start, end, initial && from == 0));
  }

  private static boolean isInitial(String text, List<int[]> tokens, int index) {
    if (index == 0) {
      return true;
    }
    int k = tokens.get(index)[0] - 1;
    while (k >= 0 && Character.isWhitespace(text.charAt(k))) {
      k--;
    }
    if (k < 0) {
      return true;
    }
    char before = text.charAt(k);
    return OPENERS.contains(before)
        || before == '.'
        || before == '!'
        || before == '?'
        || before == '…';
  }

  private static boolean capitalised(String text, int[] token) {
    String word = text.substring(token[0], token[1]);
    if (!Character.isUpperCase(word.codePointAt(0))) {
      return false;
    }
    int letters = 0;
    int upper = 0;
    for (int i = 0; i < word.length(); i++) {
      if (Character.isLetter(word.charAt(i))) {
        letters++;
        if (Character.isUpperCase(word.charAt(i))) {
          upper++;
        }
      }
    }
    // Headings in capitals ("LOST IN TRANSLATION") are typography, not names; short acronyms stay.
    return !(letters > 4 && upper == letters);
  }

  private static boolean notName(String text, int[] token) {
    String w = word(text, token).replace('’', '\'');
    w = CONTRACTION.matcher(w).replaceFirst("");
    return w.length() < 2 || Words.STOP_WORDS.contains(w) || NOT_NAMES.contains(w);
  }

  private static boolean possessive(String text, int[] token) {
    String w = text.substring(token[0], token[1]);
    return w.endsWith("'s") || w.endsWith("’s");
  }

  private static boolean singleSpace(String text, int[] left, int[] right) {
    return right[0] == left[1] + 1 && text.charAt(left[1]) == ' ';
  }

  private static String word(String text, int[] token) {
    return text.substring(token[0], token[1]).toLowerCase(Locale.ROOT);
  }
}
