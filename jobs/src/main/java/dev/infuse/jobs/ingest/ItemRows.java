package dev.infuse.jobs.ingest;

import dev.infuse.jobs.spark.SparkRows;
import dev.infuse.udfs.ingest.BenchmarkReader;
import dev.infuse.udfs.ingest.BenchmarkReaders;
import dev.infuse.udfs.ingest.DocumentRecord;
import dev.infuse.udfs.ingest.ItemSink;
import dev.infuse.udfs.ingest.QuestionRecord;
import dev.infuse.udfs.ingest.Rejection;
import dev.infuse.udfs.ingest.SourceFile;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Runs a reader over one file on an executor and flattens what it emits (documents, questions,
 * rejections) into rows of one schema, {@link #SCHEMA}, tagged by {@code kind}. The function holds
 * only the format name: the reader is looked up on the executor.
 */
final class ItemRows implements FlatMapFunction<Row, Row> {
  private static final long serialVersionUID = 1L;

  static final String DOCUMENT = "document";
  static final String QUESTION = "question";
  static final String REJECTION = "rejection";

  /** A placeholder record with every field empty: counted and reported, never an item. */
  static final String BLANK = "blank";

  static final StructType SCHEMA =
      new StructType()
          .add("kind", DataTypes.StringType, false)
          .add("source_file", DataTypes.StringType, false)
          .add("ordinal", DataTypes.LongType, false)
          .add("location", DataTypes.StringType, true)
          // documents and questions
          .add("doc_id", DataTypes.StringType, true)
          .add("meta", DataTypes.createMapType(DataTypes.StringType, DataTypes.StringType), true)
          // documents
          .add("corpus", DataTypes.StringType, true)
          .add("title", DataTypes.StringType, true)
          .add("text", DataTypes.StringType, true)
          .add("source", DataTypes.StringType, true)
          .add("license", DataTypes.StringType, true)
          // questions
          .add("question_id", DataTypes.StringType, true)
          .add("benchmark", DataTypes.StringType, true)
          .add("split", DataTypes.StringType, true)
          .add("question", DataTypes.StringType, true)
          .add("options", DataTypes.createArrayType(DataTypes.StringType), true)
          .add("gold", DataTypes.StringType, true)
          .add("gold_index", DataTypes.IntegerType, true)
          .add("answer_type", DataTypes.StringType, true)
          .add("subsets", DataTypes.createArrayType(DataTypes.StringType), true)
          // rejections
          .add("payload", DataTypes.StringType, true)
          .add("payload_bytes", DataTypes.BinaryType, true)
          .add("reason", DataTypes.StringType, true);

  private final String format;

  ItemRows(String format) {
    this.format = format;
  }

  /** Input rows are {@code (path, content)} from the binaryFile source. */
  @Override
  public Iterator<Row> call(Row file) {
    String path = file.getString(0);
    BenchmarkReader reader = BenchmarkReaders.forFormat(format);
    List<Row> rows = new ArrayList<>();
    reader.read(
        new SourceFile(path, (byte[]) file.get(1)),
        new ItemSink() {
          @Override
          public void document(DocumentRecord d) {
            rows.add(
                RowFactory.create(
                    DOCUMENT,
                    path,
                    (long) rows.size(),
                    d.location(),
                    d.docId(),
                    SparkRows.map(d.meta()),
                    d.corpus(),
                    d.title(),
                    d.text(),
                    d.source(),
                    d.license(),
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null));
          }

          @Override
          public void question(QuestionRecord q) {
            rows.add(
                RowFactory.create(
                    QUESTION,
                    path,
                    (long) rows.size(),
                    q.location(),
                    q.docId(),
                    SparkRows.map(q.meta()),
                    null,
                    null,
                    null,
                    null,
                    null,
                    q.questionId(),
                    q.benchmark(),
                    q.split(),
                    q.question(),
                    SparkRows.seq(q.options()),
                    q.gold(),
                    q.goldIndex(),
                    q.answerType(),
                    SparkRows.seq(q.subsets()),
                    null,
                    null,
                    null));
          }

          @Override
          public void reject(Rejection r) {
            rows.add(
                RowFactory.create(
                    REJECTION,
                    path,
                    (long) rows.size(),
                    r.location(),
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    r.payload(),
                    r.payloadBytes(),
                    r.reason()));
          }

          @Override
          public void blank(String location) {
            Object[] row = new Object[SCHEMA.size()];
            row[0] = BLANK;
            row[1] = path;
            row[2] = (long) rows.size();
            row[3] = location;
            rows.add(RowFactory.create(row));
          }
        });
    return rows.iterator();
  }
}
