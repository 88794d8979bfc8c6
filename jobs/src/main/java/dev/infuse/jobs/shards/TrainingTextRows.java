package dev.infuse.jobs.shards;

import dev.infuse.udfs.text.TextTokenizer;
import dev.infuse.udfs.text.Tokenizers;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Tokenizes training texts on the executors, for {@code train} and {@code build-shards}. A text is
 * a {@code prompt} (context, never a target when the loss is on answers only) and a {@code
 * completion}; documents have no prompt. The tokenizer is built once per executor JVM from the
 * broadcast tokenizer.json bytes. A text that yields no token is a failure row for quarantine,
 * never silently dropped.
 */
public final class TrainingTextRows implements FlatMapFunction<Iterator<Row>, Row> {
  private static final long serialVersionUID = 1L;

  public static final StructType SCHEMA =
      new StructType()
          .add("source", DataTypes.StringType, false)
          .add("row_id", DataTypes.StringType, false)
          .add("ids", DataTypes.createArrayType(DataTypes.IntegerType, false), true)
          .add("loss_mask", DataTypes.createArrayType(DataTypes.IntegerType, false), true)
          .add("reason", DataTypes.StringType, true)
          .add("text", DataTypes.StringType, true);

  private final Broadcast<byte[]> tokenizerJson;
  private final boolean answerOnly;

  /**
   * @param answerOnly a text with a prompt gets a loss mask that is 1 on the completion only
   */
  public TrainingTextRows(Broadcast<byte[]> tokenizerJson, boolean answerOnly) {
    this.tokenizerJson = tokenizerJson;
    this.answerOnly = answerOnly;
  }

  /**
   * Input rows are {@code (source, row_id, prompt, completion)}; prompt may be null. Output rows
   * carry the whole text.
   */
  /**
   * Rows a batch at a time as Spark pulls them: a partition of a million texts is never held whole.
   */
  @Override
  public Iterator<Row> call(Iterator<Row> texts) {
    TextTokenizer tokenizer = Tokenizers.fromBytes(tokenizerJson.value());
    return new Iterator<>() {
      private final List<Row> batch = new ArrayList<>(BATCH);
      private final List<Row> rows = new ArrayList<>(BATCH);
      private int next;

      @Override
      public boolean hasNext() {
        while (next == rows.size() && texts.hasNext()) {
          rows.clear();
          next = 0;
          batch.clear();
          while (batch.size() < BATCH && texts.hasNext()) {
            batch.add(texts.next());
          }
          tokenizeBatch(tokenizer, batch, rows);
        }
        return next < rows.size();
      }

      @Override
      public Row next() {
        if (!hasNext()) {
          throw new java.util.NoSuchElementException();
        }
        return rows.get(next++);
      }
    };
  }

  /** Texts per native batch encode. */
  private static final int BATCH = 512;

  /**
   * Encodes the batch's prompts and completions in two native calls; if either fails, each text is
   * encoded on its own, so that only the texts that fail are rejected.
   */
  private void tokenizeBatch(TextTokenizer tokenizer, List<Row> batch, List<Row> rows) {
    List<String> prompts = new ArrayList<>();
    List<String> completions = new ArrayList<>(batch.size());
    for (Row text : batch) {
      if (!text.isNullAt(2)) {
        prompts.add(text.getString(2));
      }
      completions.add(text.getString(3));
    }
    int[][] promptIds;
    int[][] completionIds;
    try {
      promptIds = tokenizer.ids(prompts);
      completionIds = tokenizer.ids(completions);
    } catch (RuntimeException e) {
      for (Row text : batch) {
        rows.add(tokenizeOne(tokenizer, text));
      }
      return;
    }
    int prompt = 0;
    for (int i = 0; i < batch.size(); i++) {
      Row text = batch.get(i);
      int[] promptOf = text.isNullAt(2) ? new int[0] : promptIds[prompt++];
      rows.add(row(text, promptOf, completionIds[i]));
    }
  }

  private Row tokenizeOne(TextTokenizer tokenizer, Row text) {
    try {
      int[] prompt = text.isNullAt(2) ? new int[0] : tokenizer.ids(text.getString(2));
      return row(text, prompt, tokenizer.ids(text.getString(3)));
    } catch (RuntimeException e) {
      return RowFactory.create(
          text.getString(0),
          text.getString(1),
          null,
          null,
          "tokenization failed: " + e,
          whole(text));
    }
  }

  private static String whole(Row text) {
    return (text.isNullAt(2) ? "" : text.getString(2))
        + (text.isNullAt(3) ? "" : text.getString(3));
  }

  private Row row(Row text, int[] prompt, int[] completion) {
    String source = text.getString(0);
    String rowId = text.getString(1);
    if (completion.length == 0) {
      return RowFactory.create(
          source, rowId, null, null, "no tokens in the training text", whole(text));
    }
    int[] ids = Arrays.copyOf(prompt, prompt.length + completion.length);
    System.arraycopy(completion, 0, ids, prompt.length, completion.length);
    int[] mask = null;
    if (answerOnly && prompt.length > 0) {
      mask = new int[ids.length];
      Arrays.fill(mask, prompt.length, ids.length, 1);
    }
    // int[] goes into an array<int> column as is (Spark's encoder takes primitive arrays, not
    // java.util.List).
    return RowFactory.create(source, rowId, ids, mask, null, whole(text));
  }
}
