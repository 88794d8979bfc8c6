package dev.infuse.udfs.llm;

import dev.infuse.udfs.generate.Entities;
import dev.infuse.udfs.generate.QaPair;
import dev.infuse.udfs.generate.Sentence;
import dev.infuse.udfs.generate.Sentences;
import dev.infuse.udfs.generate.Words;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Question-answer pairs without a model: cloze questions over informative sentences (a name, a
 * number or a noun phrase blanked out) and wh-questions where a simple pattern fits ("X was born in
 * 1900." → "When was X born?"). Every answer is a verbatim span of the document, so the pairs are
 * correct by construction, if easy; they exercise the pipeline and give a floor that model-written
 * pairs must beat.
 */
final class ExtractiveQa {
  static final String CLOZE_PREFIX = "Fill in the blank: ";
  static final String BLANK = "____";

  /**
   * Cloze questions need context around the blank; a pattern question can come from a short
   * sentence.
   */
  private static final int MIN_WORDS = 8;

  private static final int MIN_WH_WORDS = 4;
  private static final int MAX_WORDS = 45;
  private static final String NAME =
      "\\p{Lu}[\\p{L}\\p{N}'’.-]*(?: (?:of |the |de |von |van )?\\p{Lu}[\\p{L}\\p{N}'’.-]*){0,3}";
  private static final Pattern BORN =
      Pattern.compile(
          "^(?<subj>" + NAME + ") was born (?:in|on|at) (?<ans>[^,;:.!?\"“”]+?)(?:[,;:.!?]|$)");
  private static final Pattern COPULA =
      Pattern.compile(
          "^(?<subj>(?:The )?"
              + NAME
              + ") (?<verb>is|was|are|were) (?<ans>(?:a|an|the|one of) [^;:\"“”!?]{3,100}?)\\.?$");
  private static final String NUMBER_WORDS =
      "two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen"
          + "|twenty|thirty|forty|fifty|sixty|hundred|thousand|dozen|hundreds|thousands|millions";
  private static final Pattern COUNT =
      Pattern.compile(
          "(?<![\\p{L}\\p{N}.,$])(?<num>\\d[\\d,]*|(?i:"
              + NUMBER_WORDS
              + ")) (?<noun>[a-z][a-z-]{2,}s)\\b");
  private static final Pattern NUMBER =
      Pattern.compile("(?<![\\p{L}\\p{N}.,])\\$?\\d[\\d,]*(?:\\.\\d+)?%?(?![\\p{L}\\p{N}])");
  private static final Pattern NOUN_PHRASE =
      Pattern.compile(
          "\\b(?:the|a|an|his|her|their|its|our|my|your) ((?:[a-z][a-z-]+ ){0,2}[a-z][a-z-]{3,})"
              + "(?=[,.;:!?\"”)]| (?:of|in|on|at|to|from|with|by|for|and|or|but|was|were|is|are|had|has|that|which"
              + "|who)\\b)");
  private static final Pattern QUESTION_END = Pattern.compile("\\?[\"'”’)]*$");
  private static final Pattern MONTH =
      Pattern.compile(
          "(?i)\\b(?:january|february|march|april|may|june|july|august|september|october|november|december)\\b");

  private ExtractiveQa() {}

  /**
   * Up to {@code n} pairs in document order; fewer when the document has too few usable sentences.
   */
  static List<QaPair> generate(String document, int n, SplittableRandom rng) {
    List<Sentence> sentences = Sentences.split(document);
    Set<String> names = new HashSet<>();
    for (Entities.Entity entity : Entities.extract(sentences, Integer.MAX_VALUE)) {
      names.add(entity.name());
    }
    List<Sentence> usable = new ArrayList<>();
    Map<Sentence, List<QaPair>> options = new LinkedHashMap<>();
    for (Sentence sentence : sentences) {
      List<QaPair> pairs = candidates(document, sentence, names, rng);
      if (!pairs.isEmpty()) {
        usable.add(sentence);
        options.put(sentence, pairs);
      }
    }
    shuffle(usable, rng);
    List<long[]> picked = new ArrayList<>(); // {sentence index, pass}
    List<QaPair> pairs = new ArrayList<>();
    Set<String> questions = new HashSet<>();
    for (int pass = 0; pairs.size() < n && pass < 4; pass++) {
      for (Sentence sentence : usable) {
        if (pairs.size() >= n) {
          break;
        }
        List<QaPair> choices = options.get(sentence);
        if (pass < choices.size()
            && questions.add(choices.get(pass).question().toLowerCase(Locale.ROOT))) {
          picked.add(new long[] {sentence.index(), pass, pairs.size()});
          pairs.add(choices.get(pass));
        }
      }
    }
    picked.sort(Comparator.<long[]>comparingLong(p -> p[0]).thenComparingLong(p -> p[1]));
    List<QaPair> ordered = new ArrayList<>();
    for (long[] p : picked) {
      ordered.add(pairs.get((int) p[2]));
    }
    return ordered;
  }

  /**
   * The pairs one sentence allows, wh-questions first, each group in random order; empty if
   * uninformative.
   */
  static List<QaPair> candidates(
      String document, Sentence sentence, Set<String> names, SplittableRandom rng) {
    String text = sentence.text();
    int words = sentence.wordCount();
    if (words < MIN_WH_WORDS || words > MAX_WORDS || QUESTION_END.matcher(text).find()) {
      return List.of();
    }
    List<QaPair> wh = new ArrayList<>();
    whQuestion(document, text).ifPresent(wh::add);
    if (words < MIN_WORDS) {
      return wh;
    }
    List<QaPair> cloze = new ArrayList<>();
    for (Entities.Span span : Entities.spans(text)) {
      if (!span.initial() || names.contains(span.text())) {
        addCloze(document, text, span.text(), cloze);
      }
    }
    Matcher number = NUMBER.matcher(text);
    while (number.find()) {
      addCloze(document, text, number.group(), cloze);
    }
    Matcher count = COUNT.matcher(text);
    if (count.find()
        && !Words.STOP_WORDS.contains(count.group("noun"))
        && !count.group("noun").endsWith("ss")) {
      String answer = count.group("num");
      if (once(text, answer) && document.contains(answer)) {
        String blanked =
            text.substring(0, count.start("num")) + BLANK + text.substring(count.end("num"));
        wh.add(
            new QaPair(
                "How many "
                    + count.group("noun")
                    + ", according to this sentence: \""
                    + blanked
                    + "\"?",
                answer));
      }
    }
    if (wh.isEmpty() && cloze.isEmpty()) {
      return List.of();
    }
    Matcher phrase = NOUN_PHRASE.matcher(text);
    while (phrase.find()) {
      String answer = nounPhrase(phrase.group(1));
      if (answer != null) {
        addCloze(document, text, answer, cloze);
      }
    }
    shuffle(wh, rng);
    shuffle(cloze, rng);
    List<QaPair> all = new ArrayList<>(wh);
    all.addAll(cloze);
    return all;
  }

  /**
   * A wh-question for the sentence when a pattern fits and its answer is a verbatim span of the
   * document.
   */
  static Optional<QaPair> whQuestion(String document, String text) {
    Matcher born = BORN.matcher(text);
    if (born.find() && isName(born.group("subj"))) {
      String answer = born.group("ans").strip();
      if (document.contains(answer)) {
        boolean when = answer.chars().anyMatch(Character::isDigit) || MONTH.matcher(answer).find();
        return Optional.of(
            new QaPair(
                (when ? "When" : "Where") + " was " + born.group("subj") + " born?", answer));
      }
    }
    Matcher copula = COPULA.matcher(text);
    if (copula.find() && isName(copula.group("subj"))) {
      String answer = copula.group("ans").strip();
      String subject = copula.group("subj");
      if (subject.startsWith("The ")) {
        subject = "the " + subject.substring(4);
      }
      if (document.contains(answer) && answer.split(" ").length <= 16) {
        return Optional.of(
            new QaPair("What " + copula.group("verb") + " " + subject + "?", answer));
      }
    }
    return Optional.empty();
  }

  private static boolean isName(String subject) {
    String first = subject.startsWith("The ") ? subject.substring(4) : subject;
    String word = first.split(" ")[0].toLowerCase(Locale.ROOT).replace('’', '\'');
    // A leading dummy word makes the subject non-initial, so Entities judges it as a mid-sentence
    // name.
    return !Words.STOP_WORDS.contains(word)
        && Entities.spans(" x " + first).stream().anyMatch(s -> !s.initial());
  }

  private static void addCloze(String document, String text, String answer, List<QaPair> out) {
    if (answer.length() < 2 || !once(text, answer) || !document.contains(answer)) {
      return;
    }
    int at = text.indexOf(answer);
    String question =
        CLOZE_PREFIX + text.substring(0, at) + BLANK + text.substring(at + answer.length());
    for (QaPair pair : out) {
      if (pair.answer().equals(answer)) {
        return;
      }
    }
    out.add(new QaPair(question, answer));
  }

  /** The noun phrase without leading/trailing function words, or null when too little is left. */
  private static String nounPhrase(String words) {
    List<String> kept = new ArrayList<>();
    for (String word : words.split(" ")) {
      if (Words.STOP_WORDS.contains(word)) {
        break;
      }
      kept.add(word);
    }
    for (String word : kept) {
      // Without a tagger, -ly and -ed words are most often adverbs and verbs: not answer material.
      if (word.endsWith("ly") || word.endsWith("ed")) {
        return null;
      }
    }
    String phrase = String.join(" ", kept);
    return phrase.length() >= 4 ? phrase : null;
  }

  /** Whether {@code span} occurs exactly once in {@code text} as whole words. */
  private static boolean once(String text, String span) {
    Matcher matcher =
        Pattern.compile("(?<![\\p{L}\\p{N}])" + Pattern.quote(span) + "(?![\\p{L}\\p{N}])")
            .matcher(text);
    return matcher.find() && !matcher.find() && firstIsWhole(text, span);
  }

  private static boolean firstIsWhole(String text, String span) {
    int at = text.indexOf(span);
    boolean leftOk = at == 0 || !Character.isLetterOrDigit(text.charAt(at - 1));
    int end = at + span.length();
    boolean rightOk = end == text.length() || !Character.isLetterOrDigit(text.charAt(end));
    return leftOk && rightOk;
  }

  private static <T> void shuffle(List<T> list, SplittableRandom rng) {
    for (int i = list.size() - 1; i > 0; i--) {
      Collections.swap(list, i, rng.nextInt(i + 1));
    }
  }
}
