package dev.infuse.udfs.lm.train;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import dev.infuse.udfs.lm.TinyLms;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** A fixed little corpus, one sentence plus [SEP] per row. */
final class TinyCorpus {
  static final String[] SENTENCES = {
    "the cat sat on the mat",
    "the dog sat on the log",
    "a bird sang in the tree",
    "the sun rose over the hills",
    "she read a book by the fire",
    "he drank a cup of tea",
    "the river ran to the sea",
    "we walked along the shore",
  };

  private TinyCorpus() {}

  static List<PackedSequence> rows(HuggingFaceTokenizer tokenizer) {
    List<PackedSequence> rows = new ArrayList<>();
    for (String sentence : SENTENCES) {
      long[] ids = tokenizer.encode(sentence).getIds();
      int[] row =
          Arrays.copyOf(Arrays.stream(ids).mapToInt(Math::toIntExact).toArray(), ids.length + 1);
      row[ids.length] = TinyLms.EOS;
      rows.add(PackedSequence.of(row));
    }
    return rows;
  }
}
