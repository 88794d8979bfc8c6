package dev.infuse.jobs.shards;

import dev.infuse.jobs.spark.SparkRows;
import dev.infuse.udfs.decontam.BenchmarkQuestion;
import dev.infuse.udfs.decontam.CharSpan;
import dev.infuse.udfs.decontam.DecontaminatedText;
import dev.infuse.udfs.decontam.Decontaminator;
import dev.infuse.udfs.mix.MixtureSpec;
import dev.infuse.udfs.mix.QaTemplate;
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
 * Decontaminates one partition: each input row comes out once, with its columns unchanged and four
 * columns appended (outcome, kept pieces, characters removed, hits). The closure carries only the
 * broadcast handle; the index is deserialised once per executor JVM by Spark's broadcast cache.
 *
 * <p>What the {@link Decontaminator} needs to know of a row beyond its text comes from optional
 * columns: {@code doc_id} (its corpus is the part before ':'; null or absent for replay and other
 * external text) and, for {@code source = synthetic_qa}, {@code prompt} ({@link QaTemplate}'s
 * {@code Question: …\nAnswer: }), which locates the pair's question in the text.
 */
final class DecontaminationRows implements FlatMapFunction<Iterator<Row>, Row> {
  private static final long serialVersionUID = 2L;

  static final String OUTCOME = "_decontam_outcome";
  static final String PIECES = "_decontam_pieces";
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
  private final int docIdColumn;
  private final int sourceColumn;
  private final int promptColumn;

  /** Reads the text and the optional doc_id, source and prompt columns of {@code input}. */
  DecontaminationRows(Broadcast<Decontaminator> decontaminator, StructType input) {
    this.decontaminator = decontaminator;
    List<String> names = Arrays.asList(input.fieldNames());
    this.textColumn = names.indexOf("text");
    this.docIdColumn = names.indexOf("doc_id");
    this.sourceColumn = names.indexOf("source");
    this.promptColumn = names.indexOf("prompt");
  }

  /** The input schema with the four decontamination columns appended. */
  static StructType schema(StructType input) {
    return input
        .add(OUTCOME, DataTypes.StringType, false)
        .add(PIECES, DataTypes.createArrayType(DataTypes.StringType, false), false)
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
    String text = string(row, textColumn);
    String corpus = BenchmarkQuestion.corpusOf(string(row, docIdColumn));
    DecontaminatedText result = scanner.clean(text, corpus, qaQuestion(row, text));
    List<Row> hits = new ArrayList<>(result.hits().size());
    for (DecontaminatedText.Logged logged : result.hits()) {
      hits.add(
          RowFactory.create(
              logged.hit().questionId(),
              logged.hit().ngram(),
              logged.hit().charStart(),
              logged.hit().charEnd(),
              logged.action().id()));
    }
    Object[] values = new Object[row.length() + 4];
    for (int i = 0; i < row.length(); i++) {
      values[i] = row.get(i);
    }
    values[row.length()] = result.outcome().id();
    values[row.length() + 1] = SparkRows.seq(result.pieces());
    values[row.length() + 2] = result.removedChars(text);
    values[row.length() + 3] = SparkRows.seq(hits);
    return RowFactory.create(values);
  }

  /** Where a synthetic QA pair's question lies in its text; null for any other row. */
  private CharSpan qaQuestion(Row row, String text) {
    if (text == null || sourceColumn < 0 || promptColumn < 0) {
      return null;
    }
    String prompt = string(row, promptColumn);
    if (!MixtureSpec.QA.equals(string(row, sourceColumn))
        || prompt == null
        || !text.startsWith(prompt)
        || !prompt.startsWith(QaTemplate.QUESTION_PREFIX)
        || !prompt.endsWith(QaTemplate.ANSWER_PREFIX)
        || prompt.length()
            < QaTemplate.QUESTION_PREFIX.length() + QaTemplate.ANSWER_PREFIX.length()) {
      return null;
    }
    return new CharSpan(
        QaTemplate.QUESTION_PREFIX.length(), prompt.length() - QaTemplate.ANSWER_PREFIX.length());
  }

  private static String string(Row row, int column) {
    return column < 0 || row.isNullAt(column) ? null : row.getString(column);
  }
}
