package dev.infuse.udfs.generate;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Word-level helpers shared by the extractive algorithms: content terms for relevance (lower-cased,
 * stop-words dropped, possessives and plural -s folded so "Korvin's ships" matches "ship Korvin").
 */
public final class Words {
  private static final Pattern WORD = Pattern.compile("[\\p{L}\\p{N}]+(?:['’][\\p{L}]+)*");

  /** Function words that carry no topic. */
  public static final Set<String> STOP_WORDS =
      Set.of(
          "a",
          "an",
          "the",
          "and",
          "or",
          "but",
          "nor",
          "so",
          "yet",
          "for",
          "if",
          "then",
          "than",
          "that",
          "this",
          "these",
          "those",
          "there",
          "here",
          "is",
          "are",
          "was",
          "were",
          "be",
          "been",
          "being",
          "am",
          "do",
          "does",
          "did",
          "doing",
          "have",
          "has",
          "had",
          "having",
          "will",
          "would",
          "shall",
          "should",
          "can",
          "could",
          "may",
          "might",
          "must",
          "of",
          "in",
          "on",
          "at",
          "to",
          "from",
          "by",
          "with",
          "about",
          "as",
          "into",
          "onto",
          "over",
          "under",
          "after",
          "before",
          "between",
          "through",
          "during",
          "without",
          "within",
          "up",
          "down",
          "out",
          "off",
          "again",
          "further",
          "once",
          "i",
          "me",
          "my",
          "mine",
          "myself",
          "we",
          "us",
          "our",
          "ours",
          "you",
          "your",
          "yours",
          "he",
          "him",
          "his",
          "himself",
          "she",
          "her",
          "hers",
          "herself",
          "it",
          "its",
          "itself",
          "they",
          "them",
          "their",
          "theirs",
          "themselves",
          "what",
          "which",
          "who",
          "whom",
          "whose",
          "when",
          "where",
          "why",
          "how",
          "all",
          "any",
          "both",
          "each",
          "few",
          "more",
          "most",
          "other",
          "some",
          "such",
          "no",
          "not",
          "only",
          "own",
          "same",
          "too",
          "very",
          "just",
          "also",
          "even",
          "still",
          "now",
          "ever",
          "never",
          "much",
          "many",
          "one",
          "s",
          "t",
          "don't",
          "didn't",
          "doesn't",
          "isn't",
          "wasn't",
          "weren't",
          "won't",
          "wouldn't",
          "couldn't",
          "shouldn't",
          "can't",
          "i'm",
          "he's",
          "she's",
          "it's",
          "that's",
          "there's",
          "they're",
          "we're",
          "you're",
          "i'd",
          "i'll",
          "i've",
          "let",
          "said",
          "says",
          "say",
          "according",
          "text",
          "document",
          "story",
          "passage",
          "article",
          "author",
          "fill",
          "blank");

  private Words() {}

  /** The word tokens of {@code text}, in order, as written. */
  public static List<String> tokens(String text) {
    List<String> tokens = new ArrayList<>();
    Matcher matcher = WORD.matcher(text);
    while (matcher.find()) {
      tokens.add(matcher.group());
    }
    return tokens;
  }

  /**
   * The content terms of {@code text}: lower-cased, folded, stop-words and one-letter words
   * dropped.
   */
  public static List<String> terms(String text) {
    List<String> terms = new ArrayList<>();
    for (String token : tokens(text)) {
      String word = token.toLowerCase(Locale.ROOT).replace('’', '\'');
      if (STOP_WORDS.contains(word)) {
        continue;
      }
      word = fold(word);
      if (word.length() > 1 && !STOP_WORDS.contains(word)) {
        terms.add(word);
      }
    }
    return terms;
  }

  private static String fold(String word) {
    if (word.endsWith("'s")) {
      word = word.substring(0, word.length() - 2);
    }
    if (word.length() > 4 && word.endsWith("ies")) {
      return word.substring(0, word.length() - 3) + "y";
    }
    if (word.length() > 3
        && word.endsWith("s")
        && !word.endsWith("ss")
        && !word.endsWith("us")
        && !word.endsWith("is")) {
      return word.substring(0, word.length() - 1);
    }
    return word;
  }
}
