package dev.infuse.udfs.llm;

import dev.infuse.udfs.generate.Entities;
import dev.infuse.udfs.generate.Sentence;
import dev.infuse.udfs.generate.SentenceRanker;
import dev.infuse.udfs.generate.Sentences;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * EntiGraph-like documents without a model: the document's own sentences about one entity, or, for
 * a pair or triple, first the sentences where they meet (the relation is what EntiGraph is after),
 * then each entity's own. A synthetic document made of nothing but source sentences cannot
 * hallucinate.
 */
final class ExtractiveEntityDoc {
  /** Per entity, so a protagonist's document does not become the whole story. */
  private static final int MAX_SENTENCES_PER_ENTITY = 40;

  /** Summary length: about one sentence in {@code SUMMARY_SHARE}, within these bounds. */
  private static final int SUMMARY_SHARE = 25;

  private static final int SUMMARY_MIN = 3;
  private static final int SUMMARY_MAX = 12;

  /** Entity names that steer the summary's sentence choice. */
  private static final int SUMMARY_QUERY_ENTITIES = 10;

  private ExtractiveEntityDoc() {}

  /**
   * EntiGraph's first step without a model: every entity candidate the document has (most frequent
   * first, no cap: EntiGraph asks for as many as possible), and a summary made of the sentences
   * that share the most rare terms with the title and the leading entities, in document order.
   */
  static Map<String, Object> summaryAndEntities(String document, String title) {
    List<Sentence> sentences = Sentences.split(document);
    List<Entities.Entity> entities = Entities.extract(sentences, Integer.MAX_VALUE);
    List<Sentence> kept = ExtractiveRephrase.substantial(sentences);
    if (kept.isEmpty()) {
      throw new IllegalArgumentException("document: no sentence long enough to summarise");
    }
    StringBuilder query = new StringBuilder(title == null ? "" : title);
    List<String> names = new ArrayList<>();
    for (Entities.Entity entity : entities) {
      names.add(entity.name());
      if (names.size() <= SUMMARY_QUERY_ENTITIES) {
        query.append(' ').append(entity.name());
      }
    }
    int k = Math.max(SUMMARY_MIN, Math.min(SUMMARY_MAX, kept.size() / SUMMARY_SHARE));
    Set<Integer> chosen = new TreeSet<>(new SentenceRanker(kept).top(query.toString(), k));
    for (int i = 0; chosen.size() < Math.min(k, kept.size()); i++) {
      chosen.add(i); // too few scored sentences: fill from the beginning
    }
    List<String> texts = new ArrayList<>();
    for (int index : chosen) {
      texts.add(kept.get(index).text());
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("summary", "(extractive summary) " + String.join(" ", texts));
    out.put("entities", names);
    return out;
  }

  static List<String> entities(String document, int max) {
    List<String> names = new ArrayList<>();
    for (Entities.Entity entity : Entities.extract(Sentences.split(document), max)) {
      names.add(entity.name());
    }
    return names;
  }

  static String entityDoc(String document, List<String> entities) {
    List<Sentence> sentences = ExtractiveRephrase.substantial(Sentences.split(document));
    List<Pattern> patterns = new ArrayList<>();
    for (String entity : entities) {
      patterns.add(Entities.mentionPattern(entity));
    }
    Set<Integer> joint = new LinkedHashSet<>();
    if (entities.size() > 1) {
      for (int i = 0; i < sentences.size(); i++) {
        if (mentioned(patterns, sentences.get(i).text()) >= 2) {
          joint.add(i);
        }
      }
    }
    List<String> paragraphs = new ArrayList<>();
    if (!joint.isEmpty()) {
      paragraphs.add(join(sentences, joint));
    }
    for (Pattern pattern : patterns) {
      Set<Integer> own = new LinkedHashSet<>();
      for (int i = 0; i < sentences.size() && own.size() < MAX_SENTENCES_PER_ENTITY; i++) {
        if (!joint.contains(i) && pattern.matcher(sentences.get(i).text()).find()) {
          own.add(i);
        }
      }
      if (!own.isEmpty()) {
        paragraphs.add(join(sentences, own));
      }
    }
    if (paragraphs.isEmpty()) {
      throw new IllegalArgumentException(
          "entities: no sentence of the document mentions " + String.join(", ", entities));
    }
    return "Entities: " + String.join("; ", entities) + "\n\n" + String.join("\n\n", paragraphs);
  }

  private static int mentioned(List<Pattern> patterns, String text) {
    int count = 0;
    for (Pattern pattern : patterns) {
      if (pattern.matcher(text).find()) {
        count++;
      }
    }
    return count;
  }

  private static String join(List<Sentence> sentences, Set<Integer> indices) {
    List<String> texts = new ArrayList<>();
    for (int index : indices) {
      texts.add(sentences.get(index).text());
    }
    return String.join(" ", texts);
  }
}
