package dev.infuse.udfs.answer;

import dev.infuse.udfs.embed.TextEmbedder;
import dev.infuse.udfs.generate.Sentence;
import dev.infuse.udfs.generate.Sentences;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The model-free default answerer: a sentence embedder (MiniLM) instead of a language model. It is
 * weak but real: it reads the context it is given and nothing else, so it shows what retrieval
 * alone buys, and it is labelled {@code embedding} on every prediction so it is never mistaken for
 * an LLM's score.
 *
 * <p>Options: the context is cut into windows of {@value #WINDOW_WORDS} words (the embedder reads
 * at most 256 tokens of a text, so a whole chunk or article would be cut short), every window and
 * every option text is embedded, and an option's score is its highest cosine with any window. The
 * answer is the option with the highest score (the first on a tie).
 *
 * <p>Questions about one document retrieve mostly the same chunks (QuALITY and LongHealth ask some
 * twenty questions per document), so the vectors of the last {@value #CACHED_TEXTS} distinct texts
 * are kept and only new texts are embedded: the same answers, without embedding each window once
 * per question.
 *
 * <p>Free and numeric questions: the answer is the context sentence most similar to the question; a
 * numeric answer is the first number in that sentence that the question does not mention itself (a
 * year asked about is not the answer).
 */
public final class EmbeddingAnswerer {
  /** Version of the option rule, recorded as the prediction's prompt version. */
  public static final String OPTION_TAG = "embedding-option@1";

  /** Version of the sentence rule for free and numeric questions. */
  public static final String SENTENCE_TAG = "embedding-sentence@1";

  /** Words per context window: well under MiniLM's 256-token limit for English prose. */
  public static final int WINDOW_WORDS = 150;

  /** Distinct texts whose vectors are kept between questions. */
  public static final int CACHED_TEXTS = 4096;

  private final TextEmbedder embedder;
  private final Map<String, float[]> vectors =
      new LinkedHashMap<>(256, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, float[]> eldest) {
          return size() > CACHED_TEXTS;
        }
      };
  private long embedded;

  public EmbeddingAnswerer(TextEmbedder embedder) {
    this.embedder = Objects.requireNonNull(embedder, "embedder");
  }

  /** How many texts this answerer has sent to the embedder (the rest came from its cache). */
  public long embedded() {
    return embedded;
  }

  /**
   * The vectors of {@code texts}, in order; each distinct text not seen lately is embedded, all in
   * one batch.
   */
  private float[][] embed(List<String> texts) {
    List<String> missing = new ArrayList<>();
    for (String text : texts) {
      if (!vectors.containsKey(text) && !missing.contains(text)) {
        missing.add(text);
      }
    }
    Map<String, float[]> fresh = new HashMap<>();
    if (!missing.isEmpty()) {
      float[][] computed = embedder.embed(missing);
      embedded += missing.size();
      for (int i = 0; i < missing.size(); i++) {
        fresh.put(missing.get(i), computed[i]);
        vectors.put(missing.get(i), computed[i]);
      }
    }
    float[][] out = new float[texts.size()][];
    for (int i = 0; i < texts.size(); i++) {
      float[] cached = fresh.get(texts.get(i));
      out[i] = cached != null ? cached : vectors.get(texts.get(i));
    }
    return out;
  }

  /**
   * One answer.
   *
   * @param answer the option letter or label (choice questions), the sentence (free) or the
   *     canonical number (numeric); null when the context gave nothing to choose from
   * @param scores the options' cosines, in option order, for choice questions; null otherwise
   * @param evidence for free and numeric questions, the chosen sentence; null otherwise
   */
  public record Answer(String answer, double[] scores, String evidence) {}

  /** The version tag of the rule that answers {@code input}. */
  public static String tag(AnswerInput input) {
    return input.hasOptions() ? OPTION_TAG : SENTENCE_TAG;
  }

  /**
   * Answers {@code input} from {@code context} (passages, or the question's document in closed
   * book).
   */
  public Answer answer(AnswerInput input, List<String> context) {
    return input.hasOptions() ? chooseOption(input, context) : chooseSentence(input, context);
  }

  private Answer chooseOption(AnswerInput input, List<String> context) {
    List<String> windows = new ArrayList<>();
    context.forEach(text -> windows.addAll(windows(text, WINDOW_WORDS)));
    if (windows.isEmpty()) {
      return new Answer(null, null, null);
    }
    List<String> texts = new ArrayList<>(input.options());
    texts.addAll(windows);
    float[][] vectors = embed(texts);
    int n = input.options().size();
    double[] scores = new double[n];
    Arrays.fill(scores, Double.NEGATIVE_INFINITY);
    for (int o = 0; o < n; o++) {
      for (int w = n; w < vectors.length; w++) {
        scores[o] = Math.max(scores[o], dot(vectors[o], vectors[w]));
      }
    }
    int best = 0;
    for (int o = 1; o < n; o++) {
      if (scores[o] > scores[best]) {
        best = o;
      }
    }
    String answer =
        AnswerTypes.LABEL.equals(input.answerType())
            ? input.options().get(best)
            : AnswerTypes.letter(best);
    return new Answer(answer, scores, null);
  }

  private Answer chooseSentence(AnswerInput input, List<String> context) {
    List<String> sentences = new ArrayList<>();
    for (String text : context) {
      for (Sentence sentence : Sentences.split(text)) {
        if (!sentence.text().isBlank()) {
          sentences.add(sentence.text());
        }
      }
    }
    if (sentences.isEmpty()) {
      return new Answer(null, null, null);
    }
    List<String> texts = new ArrayList<>();
    texts.add(input.question());
    texts.addAll(sentences);
    float[][] vectors = embed(texts);
    int best = 1;
    for (int s = 2; s < vectors.length; s++) {
      if (dot(vectors[0], vectors[s]) > dot(vectors[0], vectors[best])) {
        best = s;
      }
    }
    String sentence = sentences.get(best - 1);
    String answer = sentence;
    if (AnswerTypes.NUMERIC.equals(input.answerType())) {
      answer = null;
      List<java.math.BigDecimal> asked = Numbers.all(input.question());
      for (java.math.BigDecimal number : Numbers.all(sentence)) {
        if (asked.stream().noneMatch(q -> Numbers.equal(q, number))) {
          answer = Numbers.canonical(number);
          break;
        }
      }
    }
    return new Answer(answer, null, sentence);
  }

  /**
   * {@code text} as consecutive windows of at most {@code words} whitespace-separated words; none
   * when blank.
   */
  public static List<String> windows(String text, int words) {
    if (words < 1) {
      throw new IllegalArgumentException("window words: got " + words + ", expected >= 1");
    }
    List<String> windows = new ArrayList<>();
    if (text == null || text.isBlank()) {
      return windows;
    }
    String[] tokens = text.strip().split("\\s+");
    for (int start = 0; start < tokens.length; start += words) {
      windows.add(
          String.join(
              " ", Arrays.copyOfRange(tokens, start, Math.min(tokens.length, start + words))));
    }
    return windows;
  }

  /** The cosine of two unit vectors. */
  private static double dot(float[] a, float[] b) {
    double sum = 0;
    for (int i = 0; i < a.length; i++) {
      sum += (double) a[i] * b[i];
    }
    return sum;
  }
}
