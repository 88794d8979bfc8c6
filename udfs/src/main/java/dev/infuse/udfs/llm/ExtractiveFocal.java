package dev.infuse.udfs.llm;

import dev.infuse.udfs.generate.Sentence;
import dev.infuse.udfs.generate.SentenceRanker;
import dev.infuse.udfs.generate.Sentences;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * Focal rewriting without a model: for each question, the document sentences most relevant to it by
 * IDF-weighted term overlap, each with a sentence of context on either side, merged and kept in
 * document order. It is the retrieval half of focal rewriting (which passages the questions are
 * about) with none of the explaining; a floor for the model-written version and a faithful pipeline
 * stand-in.
 */
final class ExtractiveFocal {
  static final int TOP_PER_QUESTION = 3;
  static final int CONTEXT = 1;

  private ExtractiveFocal() {}

  static String rewrite(String document, List<String> questions) {
    List<Sentence> sentences = Sentences.split(document);
    SentenceRanker ranker = new SentenceRanker(sentences);
    TreeSet<Integer> chosen = new TreeSet<>();
    for (String question : questions) {
      for (int index : ranker.top(question, TOP_PER_QUESTION)) {
        for (int i = Math.max(0, index - CONTEXT);
            i <= Math.min(sentences.size() - 1, index + CONTEXT);
            i++) {
          chosen.add(i);
        }
      }
    }
    if (chosen.isEmpty()) {
      throw new IllegalArgumentException(
          "questions: no sentence of the document shares a content word with any question");
    }
    List<String> passages = new ArrayList<>();
    StringBuilder passage = new StringBuilder();
    int previous = -2;
    for (int index : chosen) {
      Sentence sentence = sentences.get(index);
      boolean continues =
          index == previous + 1 && sentence.paragraph() == sentences.get(previous).paragraph();
      if (!continues && passage.length() > 0) {
        passages.add(passage.toString());
        passage.setLength(0);
      }
      if (passage.length() > 0) {
        passage.append(' ');
      }
      passage.append(sentence.text());
      previous = index;
    }
    passages.add(passage.toString());
    return "(extractive focal rewrite for "
        + questions.size()
        + " question(s))\n\n"
        + String.join("\n\n", passages);
  }
}
