package dev.infuse.udfs.text;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A test tokenizer whose tokens are the text's whitespace-separated words, so chunk sizes can be
 * reasoned about exactly; {@code extraPerCount} makes a text's own count higher than its words, as
 * a substring's re-tokenization sometimes is.
 */
final class WordTokenizer implements TextTokenizer {
  private static final Pattern WORD = Pattern.compile("\\S+");
  private final int extraPerCount;

  WordTokenizer(int extraPerCount) {
    this.extraPerCount = extraPerCount;
  }

  @Override
  public String id() {
    return "words+" + extraPerCount;
  }

  @Override
  public TokenSpans spans(String text) {
    List<int[]> words = new ArrayList<>();
    Matcher matcher = WORD.matcher(text);
    while (matcher.find()) {
      words.add(new int[] {matcher.start(), matcher.end()});
    }
    int[] starts = words.stream().mapToInt(w -> w[0]).toArray();
    int[] ends = words.stream().mapToInt(w -> w[1]).toArray();
    return new TokenSpans(starts, ends);
  }

  @Override
  public int count(String text) {
    int words = spans(text).size();
    return words == 0 ? 0 : words + extraPerCount;
  }

  /** Each word's id is its length: enough for tests that only need ids to exist. */
  @Override
  public int[] ids(String text) {
    TokenSpans spans = spans(text);
    int[] ids = new int[spans.size()];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = spans.end(i) - spans.start(i);
    }
    return ids;
  }

  @Override
  public void close() {}
}
