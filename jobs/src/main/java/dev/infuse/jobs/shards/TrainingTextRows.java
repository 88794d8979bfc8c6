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
  @Override
  public Iterator<Row> call(Iterator<Row> texts) {
    TextTokenizer tokenizer = Tokenizers.fromBytes(tokenizerJson.value());
    List<Row> rows = new ArrayList<>();
    while (texts.hasNext()) {
      Row text = texts.next();
      String source = text.getString(0);
      String rowId = text.getString(1);
      String whole =
          (text.isNullAt(2) ? "" : text.getString(2)) + (text.isNullAt(3) ? "" : text.getString(3));
      try {
        int[] prompt = text.isNullAt(2) ? new int[0] : tokenizer.ids(text.getString(2));
        int[] completion = tokenizer.ids(text.getString(3));
        if (completion.length == 0) {
          rows.add(
              RowFactory.create(
                  source, rowId, null, null, "no tokens in the training text", whole));
          continue;
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
        rows.add(RowFactory.create(source, rowId, ids, mask, null, whole));
      } catch (RuntimeException e) {
        rows.add(RowFactory.create(source, rowId, null, null, "tokenization failed: " + e, whole));
      }
    }
    return rows.iterator();
  }
}
