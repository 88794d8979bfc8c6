package dev.infuse.udfs.llm;

import dev.infuse.udfs.generate.Entities;
import dev.infuse.udfs.generate.GenerationTask;
import dev.infuse.udfs.generate.QaPair;
import dev.infuse.udfs.generate.Sentence;
import dev.infuse.udfs.generate.Sentences;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * WRAP-like restylings made only of the document's own sentences, reordered, regrouped, selected or
 * split; nothing is paraphrased, and the first line says so. They give the rephrase pipeline real,
 * faithful text to carry when no model is configured.
 */
final class ExtractiveRephrase {
  private static final int MIN_WORDS = 3;
  private static final int LONG_SENTENCE_WORDS = 20;
  private static final double TERSE_SHARE = 0.4;
  private static final int ENCYCLOPEDIC_SECTIONS = 8;
  private static final Pattern WHICH_TAIL =
      Pattern.compile("^(?<head>.{12,}?), which (?<tail>[^,]{8,})$");
  private static final Pattern NUMBER = Pattern.compile("\\d");
  private static final Pattern TERMINATED = Pattern.compile("[.!?…][\"'”’)\\]]*$");
  private static final List<String> ENTITY_QUESTIONS =
      List.of(
          "What does the text say about %s?",
          "What do we learn about %s?", "What happens with %s?", "What else is said about %s?");
  private static final List<String> PLAIN_QUESTIONS =
      List.of(
          "What happens next?",
          "What comes after that?",
          "What does the text say next?",
          "And then?");

  private ExtractiveRephrase() {}

  static String rephrase(String document, String title, String style, SplittableRandom rng) {
    List<Sentence> sentences = Sentences.split(document);
    switch (style) {
      case GenerationTask.STYLE_SIMPLE:
        return header(style) + simple(sentences);
      case GenerationTask.STYLE_ENCYCLOPEDIC:
        return (title == null || title.isBlank() ? "" : Sentences.normalize(title) + "\n")
            + header(style)
            + encyclopedic(sentences);
      case GenerationTask.STYLE_TERSE:
        return header(style) + terse(sentences);
      case GenerationTask.STYLE_QA_DIALOGUE:
        return header(style) + dialogue(document, sentences, rng);
      default:
        throw new IllegalArgumentException(
            "style: got "
                + style
                + ", expected one of "
                + String.join(", ", GenerationTask.STYLES));
    }
  }

  private static String header(String style) {
    return "(extractive rephrase: " + style + ")\n\n";
  }

  /**
   * Sentences in order, paragraphs kept, long ones split at semicolons and at a closing ", which
   * …".
   */
  private static String simple(List<Sentence> sentences) {
    StringBuilder out = new StringBuilder();
    int paragraph = -1;
    for (Sentence sentence : sentences) {
      if (paragraph >= 0) {
        out.append(sentence.paragraph() != paragraph ? "\n\n" : " ");
      }
      paragraph = sentence.paragraph();
      out.append(String.join(" ", simplify(sentence.text())));
    }
    return out.toString();
  }

  static List<String> simplify(String text) {
    if (text.split(" ").length <= LONG_SENTENCE_WORDS) {
      return List.of(text);
    }
    List<String> pieces = new ArrayList<>();
    String[] clauses = text.split("; ");
    for (int i = 0; i < clauses.length; i++) {
      String clause = i == 0 ? clauses[i] : capitalise(clauses[i]);
      Matcher which = WHICH_TAIL.matcher(clause);
      if (which.matches()) {
        pieces.add(terminate(which.group("head")));
        pieces.add("This " + terminate(which.group("tail")));
      } else {
        pieces.add(i < clauses.length - 1 ? terminate(clause) : clause);
      }
    }
    return pieces;
  }

  /**
   * A title line, then one section per leading entity holding the sentences that mention it first.
   */
  private static String encyclopedic(List<Sentence> sentences) {
    List<Sentence> kept = substantial(sentences);
    List<Entities.Entity> entities = Entities.extract(sentences, ENCYCLOPEDIC_SECTIONS);
    Map<String, List<String>> sections = new LinkedHashMap<>();
    for (Entities.Entity entity : entities) {
      sections.put(entity.name(), new ArrayList<>());
    }
    List<String> other = new ArrayList<>();
    List<Pattern> patterns = new ArrayList<>();
    for (Entities.Entity entity : entities) {
      patterns.add(Entities.mentionPattern(entity.name()));
    }
    for (Sentence sentence : kept) {
      boolean placed = false;
      for (int i = 0; i < entities.size() && !placed; i++) {
        if (patterns.get(i).matcher(sentence.text()).find()) {
          sections.get(entities.get(i).name()).add(sentence.text());
          placed = true;
        }
      }
      if (!placed) {
        other.add(sentence.text());
      }
    }
    StringBuilder out = new StringBuilder();
    sections.forEach(
        (name, texts) -> {
          if (!texts.isEmpty()) {
            out.append(name).append("\n").append(String.join(" ", texts)).append("\n\n");
          }
        });
    if (!other.isEmpty()) {
      out.append("Other details\n").append(String.join(" ", other)).append("\n\n");
    }
    return out.toString().strip();
  }

  /** The densest ~40% of sentences by names and numbers per word, in document order. */
  private static String terse(List<Sentence> sentences) {
    List<Sentence> kept = substantial(sentences);
    List<double[]> scored = new ArrayList<>();
    for (int i = 0; i < kept.size(); i++) {
      scored.add(new double[] {density(kept.get(i)), i});
    }
    scored.sort(Comparator.<double[]>comparingDouble(s -> -s[0]).thenComparingDouble(s -> s[1]));
    int take = (int) Math.ceil(kept.size() * TERSE_SHARE);
    List<Integer> chosen = new ArrayList<>();
    for (int i = 0; i < take; i++) {
      chosen.add((int) scored.get(i)[1]);
    }
    chosen.sort(null);
    List<String> texts = new ArrayList<>();
    for (int index : chosen) {
      texts.add(kept.get(index).text());
    }
    return String.join(" ", texts);
  }

  static double density(Sentence sentence) {
    double signals = 0;
    for (Entities.Span span : Entities.spans(sentence.text())) {
      if (!span.initial()) {
        signals += span.text().split(" ").length;
      }
    }
    for (String word : sentence.text().split(" ")) {
      if (NUMBER.matcher(word).find()) {
        signals++;
      }
    }
    return signals / Math.sqrt(sentence.wordCount());
  }

  /**
   * Alternating questions and answers; each answer is one or two consecutive sentences of a
   * paragraph.
   */
  private static String dialogue(String document, List<Sentence> sentences, SplittableRandom rng) {
    List<Sentence> kept = substantial(sentences);
    List<Entities.Entity> entities = Entities.extract(sentences, 20);
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < kept.size(); ) {
      Sentence first = kept.get(i);
      List<String> answer = new ArrayList<>(List.of(first.text()));
      int next = i + 1;
      if (next < kept.size()
          && kept.get(next).paragraph() == first.paragraph()
          && rng.nextBoolean()) {
        answer.add(kept.get(next).text());
        next++;
      }
      out.append("Q: ")
          .append(question(document, first, entities, rng))
          .append("\nA: ")
          .append(String.join(" ", answer))
          .append("\n\n");
      i = next;
    }
    return out.toString().strip();
  }

  private static String question(
      String document, Sentence sentence, List<Entities.Entity> entities, SplittableRandom rng) {
    Optional<QaPair> wh = ExtractiveQa.whQuestion(document, sentence.text());
    if (wh.isPresent()) {
      return wh.get().question();
    }
    for (Entities.Entity entity : entities) {
      if (Entities.mentions(sentence.text(), entity.name())) {
        return String.format(
            ENTITY_QUESTIONS.get(rng.nextInt(ENTITY_QUESTIONS.size())), entity.name());
      }
    }
    return PLAIN_QUESTIONS.get(rng.nextInt(PLAIN_QUESTIONS.size()));
  }

  /**
   * Sentences of at least three words, with some lower case and a closing punctuation mark:
   * bylines, captions and headings are left out.
   */
  static List<Sentence> substantial(List<Sentence> sentences) {
    List<Sentence> kept = new ArrayList<>();
    for (Sentence sentence : sentences) {
      if (sentence.wordCount() >= MIN_WORDS
          && sentence.text().chars().anyMatch(Character::isLowerCase)
          && TERMINATED.matcher(sentence.text()).find()) {
        kept.add(sentence);
      }
    }
    return kept;
  }

  private static String capitalise(String text) {
    return text.isEmpty() ? text : Character.toUpperCase(text.charAt(0)) + text.substring(1);
  }

  private static String terminate(String text) {
    String t = text.strip();
    if (t.endsWith(",")) {
      t = t.substring(0, t.length() - 1);
    }
    return TERMINATED.matcher(t).find() ? t : t + ".";
  }
}
