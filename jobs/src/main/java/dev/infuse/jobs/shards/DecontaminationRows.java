package dev.infuse.jobs.shards;

import dev.infuse.jobs.spark.SparkRows;
import dev.infuse.udfs.decontam.ContaminationHit;
import dev.infuse.udfs.decontam.DecontaminatedText;
import dev.infuse.udfs.decontam.Decontaminator;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Decontaminates one partition: each input row comes out once, with its columns unchanged and four
 * columns appended (outcome, kept text, characters removed, hits). The closure carries only the
 * broadcast handle; the index is deserialised once per executor JVM by Spark's broadcast cache.
 */
final class DecontaminationRows implements FlatMapFunction<Iterator<Row>, Row> {
  private static final long serialVersionUID = 1L;

  static final String OUTCOME = "_decontam_outcome";
  static final String KEPT_TEXT = "_decontam_text";
  static final String REMOVED_CHARS = "_decontam_removed_chars";
  static final String HITS = "_decontam_hits";

  static final StructType HIT =
      new StructType()
          .add("question_id", DataTypes.StringType, false)
          .add("ngram", DataTypes.StringType, false)
          .add("char_start", DataTypes.IntegerType, false)
          .add("char_end", DataTypes.IntegerType, false)
          .add("action", DataTypes.StringType, false);

  private final Broadcast<Decontaminator> decontaminator;
  private final int textColumn;

  DecontaminationRows(Broadcast<Decontaminator> decontaminator, int textColumn) {
    this.decontaminator = decontaminator;
    this.textColumn = textColumn;
  }

  /** The input schema with the four decontamination columns appended. */
  static StructType schema(StructType input) {
    return input
        .add(OUTCOME, DataTypes.StringType, false)
        .add(KEPT_TEXT, DataTypes.StringType, true)
        .add(REMOVED_CHARS, DataTypes.IntegerType, false)
        .add(HITS, DataTypes.createArrayType(HIT, false), false);
  }

  @Override
  public Iterator<Row> call(Iterator<Row> rows) {
    Decontaminator scanner = decontaminator.value();
    // Lazy, so a partition streams through instead of being held whole.
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        return rows.hasNext();
      }

      @Override
      public Row next() {
        return decontaminate(scanner, rows.next());
      }
    };
  }

  private Row decontaminate(Decontaminator scanner, Row row) {
    String text = row.isNullAt(textColumn) ? null : row.getString(textColumn);
    DecontaminatedText result = scanner.clean(text);
    List<Row> hits = new ArrayList<>(result.hits().size());
    for (ContaminationHit hit : result.hits()) {
      hits.add(
          RowFactory.create(
              hit.questionId(),
              hit.ngram(),
              hit.charStart(),
              hit.charEnd(),
              result.outcome().action()));
    }
    Object[] values = new Object[row.length() + 4];
    for (int i = 0; i < row.length(); i++) {
      values[i] = row.get(i);
    }
    values[row.length()] = Decontamination.outcomeName(result.outcome());
    values[row.length() + 1] = result.text();
    // A dropped row loses all its characters, whatever spans matched.
    values[row.length() + 2] = result.outcome().keepsRow() ? result.removedChars() : text.length();
    values[row.length() + 3] = SparkRows.seq(hits);
    return RowFactory.create(values);
  }
}
