package dev.infuse.jobs.shards;

import dev.infuse.udfs.lm.train.PackedSequence;
import dev.infuse.udfs.shards.DigestingFileOutput;
import dev.infuse.udfs.shards.ShardFile;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;

/**
 * Writes one Parquet token shard: a row per packed sequence with {@code shard}, {@code sequence}
 * (its index in the shard), {@code input_ids}, {@code document_lengths}, {@code loss_mask} (0 on
 * padding only) and {@code answer_mask} (also 0 on the questions of QA pairs, for answer-only
 * loss). The list columns use Parquet's standard three-level LIST layout, which Spark, pyarrow and
 * HuggingFace {@code datasets} read as integer arrays.
 *
 * <p>It goes through parquet-mr's writer (with its own write support) straight to a {@link
 * DigestingFileOutput}, not through a Spark write: the file gets its final, deterministic name, its
 * SHA-256 as it streams, and an atomic publish. The same sequences always give the same bytes:
 * parquet-mr writes no timestamps, and the footer, which parquet-mr writes in an order that varies
 * between JVMs, is held back and put in {@link ParquetFooter canonical form} before it reaches the
 * file.
 */
public final class ParquetShardWriter implements Closeable {
  /** The shard schema; {@code train} reads the list columns. */
  public static final MessageType SCHEMA =
      Types.buildMessage()
          .required(PrimitiveTypeName.INT32)
          .named("shard")
          .required(PrimitiveTypeName.INT64)
          .named("sequence")
          .addField(intList("input_ids"))
          .addField(intList("document_lengths"))
          .addField(intList("loss_mask"))
          .addField(intList("answer_mask"))
          .named("infuse_token_shard");

  private final DigestingFileOutput out;
  private final TailHoldingStream stream;
  private final ParquetWriter<Row> writer;
  private final int shard;
  private long sequences;
  private boolean closed;

  public ParquetShardWriter(Path path, int shard) {
    this.shard = shard;
    try {
      this.out = new DigestingFileOutput(path);
      this.stream = new TailHoldingStream(out);
      this.writer =
          new Builder(new StreamOutputFile(stream))
              .withConf(new Configuration(false))
              .withCompressionCodec(CompressionCodecName.SNAPPY)
              .withWriteMode(ParquetFileWriter.Mode.OVERWRITE)
              .build();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start Parquet shard " + path, e);
    }
  }

  /**
   * Appends one packed sequence.
   *
   * @param padding its trailing padding tokens: the only tokens {@code loss_mask} excludes
   */
  public void write(PackedSequence sequence, int padding) {
    int[] lossMask = new int[sequence.inputIds().length];
    java.util.Arrays.fill(lossMask, 0, lossMask.length - padding, 1);
    try {
      writer.write(new Row(shard, sequences, sequence, lossMask));
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot write Parquet shard " + shard + " sequence " + sequences, e);
    }
    sequences++;
  }

  public long sequences() {
    return sequences;
  }

  /** Writes the footer, publishes the file and returns its size and checksum. */
  public ShardFile commit() {
    try {
      writer.close();
      stream.releaseTail();
      ShardFile file = out.finish();
      out.publish();
      closed = true;
      return file;
    } catch (IOException e) {
      out.discard();
      closed = true;
      throw new UncheckedIOException("cannot publish Parquet shard " + shard, e);
    }
  }

  /** Abandons an uncommitted shard. */
  @Override
  public void close() {
    if (!closed) {
      closed = true;
      try {
        writer.close();
      } catch (IOException | RuntimeException ignored) {
        // The temporary file is deleted next; nothing was published.
      }
      out.discard();
    }
  }

  /** One Parquet row: a sequence with its place and its padding-only loss mask. */
  private record Row(int shard, long sequence, PackedSequence packed, int[] lossMask) {}

  /**
   * Writes rows straight to parquet-mr's record consumer: one call per value, no object per list
   * element (the example writer's Group objects cost about as much as tokenizing).
   */
  private static final class RowWriteSupport extends WriteSupport<Row> {
    private final TailHoldingStream stream;
    private RecordConsumer consumer;

    RowWriteSupport(TailHoldingStream stream) {
      this.stream = stream;
    }

    @Override
    public WriteContext init(Configuration configuration) {
      return new WriteContext(SCHEMA, java.util.Map.of());
    }

    @Override
    public void prepareForWrite(RecordConsumer recordConsumer) {
      this.consumer = recordConsumer;
    }

    @Override
    public void write(Row row) {
      consumer.startMessage();
      consumer.startField("shard", 0);
      consumer.addInteger(row.shard());
      consumer.endField("shard", 0);
      consumer.startField("sequence", 1);
      consumer.addLong(row.sequence());
      consumer.endField("sequence", 1);
      list("input_ids", 2, row.packed().inputIds());
      list("document_lengths", 3, row.packed().documentLengths());
      list("loss_mask", 4, row.lossMask());
      list("answer_mask", 5, row.packed().lossMask());
      consumer.endMessage();
    }

    /**
     * parquet-mr calls this on close, after the last row group is written and before the page
     * indexes and footer: from here on the stream holds the bytes back for canonicalizing.
     */
    @Override
    public FinalizedWriteContext finalizeWrite() {
      stream.holdTail();
      return new FinalizedWriteContext(java.util.Map.of());
    }

    /** A required LIST: group { repeated group list { required int32 element } }. */
    private void list(String name, int index, int[] values) {
      consumer.startField(name, index);
      consumer.startGroup();
      if (values.length > 0) {
        consumer.startField("list", 0);
        for (int value : values) {
          consumer.startGroup();
          consumer.startField("element", 0);
          consumer.addInteger(value);
          consumer.endField("element", 0);
          consumer.endGroup();
        }
        consumer.endField("list", 0);
      }
      consumer.endGroup();
      consumer.endField(name, index);
    }
  }

  private static final class Builder extends ParquetWriter.Builder<Row, Builder> {
    private final StreamOutputFile file;

    Builder(StreamOutputFile file) {
      super(file);
      this.file = file;
    }

    @Override
    protected Builder self() {
      return this;
    }

    @Override
    protected WriteSupport<Row> getWriteSupport(Configuration conf) {
      return new RowWriteSupport(file.stream);
    }
  }

  private static org.apache.parquet.schema.GroupType intList(String name) {
    return Types.requiredGroup()
        .as(LogicalTypeAnnotation.listType())
        .repeatedGroup()
        .required(PrimitiveTypeName.INT32)
        .named("element")
        .named("list")
        .named(name);
  }

  /** parquet-mr's output seam over a plain stream; parquet-mr 1.13 has no local-file one. */
  private static final class StreamOutputFile implements OutputFile {
    private final TailHoldingStream stream;

    StreamOutputFile(TailHoldingStream stream) {
      this.stream = stream;
    }

    @Override
    public PositionOutputStream create(long blockSizeHint) {
      return stream;
    }

    @Override
    public PositionOutputStream createOrOverwrite(long blockSizeHint) {
      return stream;
    }

    @Override
    public boolean supportsBlockSize() {
      return false;
    }

    @Override
    public long defaultBlockSize() {
      return 0;
    }
  }

  /**
   * Passes the row groups straight through to the digesting file, and keeps what follows them (page
   * indexes and footer: kilobytes) in memory until {@link #releaseTail()} writes it canonicalized.
   */
  private static final class TailHoldingStream extends PositionOutputStream {
    private final DigestingFileOutput out;
    private ByteArrayOutputStream tail;

    TailHoldingStream(DigestingFileOutput out) {
      this.out = out;
    }

    void holdTail() {
      tail = new ByteArrayOutputStream();
    }

    void releaseTail() throws IOException {
      if (tail == null) {
        throw new IllegalStateException("parquet-mr closed the shard without finalizing its write");
      }
      out.write(ParquetFooter.canonicalTail(tail.toByteArray()));
      tail = null;
    }

    @Override
    public long getPos() {
      return out.bytes() + (tail == null ? 0 : tail.size());
    }

    @Override
    public void write(int b) throws IOException {
      if (tail != null) {
        tail.write(b);
      } else {
        out.write(b);
      }
    }

    @Override
    public void write(byte[] data, int offset, int length) throws IOException {
      if (tail != null) {
        tail.write(data, offset, length);
      } else {
        out.write(data, offset, length);
      }
    }

    @Override
    public void close() {
      // The digesting stream is finished and published by the shard writer, not by parquet-mr.
    }
  }
}
