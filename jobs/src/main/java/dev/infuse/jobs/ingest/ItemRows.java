package dev.infuse.jobs.ingest;

import dev.infuse.jobs.spark.SparkRows;
import dev.infuse.udfs.ingest.BenchmarkReader;
import dev.infuse.udfs.ingest.BenchmarkReaders;
import dev.infuse.udfs.ingest.DocumentRecord;
import dev.infuse.udfs.ingest.ItemSink;
import dev.infuse.udfs.ingest.QuestionRecord;
import dev.infuse.udfs.ingest.Rejection;
import dev.infuse.udfs.ingest.SourceFile;
import java.util.Iterator;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.SerializableConfiguration;

/**
 * Runs a reader over one file on an executor and flattens what it emits (documents, questions,
 * rejections) into rows of one schema, {@link #SCHEMA}, tagged by {@code kind}. The file is opened
 * as a stream and the rows are handed on as the reader emits them, so a line-oriented file larger
 * than the executor's heap passes through it. The function holds only the format name and the
 * Hadoop configuration: the reader is looked up on the executor.
 */
final class ItemRows implements FlatMapFunction<String, Row> {
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
  private final Broadcast<SerializableConfiguration> hadoop;

  ItemRows(String format, Broadcast<SerializableConfiguration> hadoop) {
    this.format = format;
    this.hadoop = hadoop;
  }

  /** The input is one file's path or URI. */
  @Override
  public Iterator<Row> call(String path) {
    Configuration conf = hadoop.value().value();
    SourceFile file =
        SourceFile.streamed(
            path,
            () -> {
              Path hadoopPath = new Path(path);
              return hadoopPath.getFileSystem(conf).open(hadoopPath);
            });
    BenchmarkReader reader = BenchmarkReaders.forFormat(format);
    return ProducedIterator.start(
        "infuse-ingest-" + file.fileName(), rows -> read(reader, file, rows));
  }

  private static void read(BenchmarkReader reader, SourceFile file, Consumer<Row> rows) {
    String path = file.path();
    long[] ordinal = {0};
    reader.read(
        file,
        new ItemSink() {
          @Override
          public void document(DocumentRecord d) {
            rows.accept(
                RowFactory.create(
                    DOCUMENT,
                    path,
                    ordinal[0]++,
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
            rows.accept(
                RowFactory.create(
                    QUESTION,
                    path,
                    ordinal[0]++,
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
            rows.accept(
                RowFactory.create(
                    REJECTION,
                    path,
                    ordinal[0]++,
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
            row[2] = ordinal[0]++;
            row[3] = location;
            rows.accept(RowFactory.create(row));
          }
        });
  }
}
