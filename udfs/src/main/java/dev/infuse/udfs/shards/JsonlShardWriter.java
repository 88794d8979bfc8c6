package dev.infuse.udfs.shards;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/**
 * Writes a JSON Lines text shard: one object per line, {@code {"text": ..., "source": ..., "id":
 * ...}}, UTF-8, each line ended by {@code \n} (newlines inside texts are escaped by JSON). This is
 * the plain format HuggingFace {@code datasets} ("json" builder), NeMo and Megatron's {@code
 * preprocess_data.py} read.
 *
 * <p>Records stream to a hidden temporary file next to the target; {@link #commit()} renames it
 * into place and returns its size and SHA-256, so a reader never sees a half-written shard. Closing
 * without committing deletes the temporary file and leaves any existing target untouched.
 */
public final class JsonlShardWriter implements Closeable {
  // No root-value separator: Jackson would otherwise start every line after the first with a space.
  private static final JsonFactory JSON = new JsonFactory().setRootValueSeparator(null);

  private final DigestingFileOutput out;
  private final JsonGenerator generator;
  private long records;
  private ShardFile committed;
  private boolean closed;

  /** Starts a shard that {@link #commit()} publishes at {@code path}. */
  public JsonlShardWriter(Path path) {
    try {
      this.out = new DigestingFileOutput(path);
      this.generator = JSON.createGenerator(out, JsonEncoding.UTF8);
      // The digest stream stays open between records; the generator must not close it.
      generator.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start JSONL shard " + path, e);
    }
  }

  /** Appends one record; {@code source} may be null, {@code text} and {@code id} may not. */
  public void write(String id, String source, String text) {
    if (closed) {
      throw new IllegalStateException("JSONL shard: write after commit or close");
    }
    if (id == null || text == null) {
      throw new IllegalArgumentException(
          "JSONL shard record: id and text are required, got id="
              + id
              + (text == null ? ", text=null" : ""));
    }
    try {
      generator.writeStartObject();
      generator.writeStringField("text", text);
      generator.writeStringField("source", source);
      generator.writeStringField("id", id);
      generator.writeEndObject();
      generator.writeRaw('\n');
      records++;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write JSONL shard record " + id, e);
    }
  }

  /** Records written so far. */
  public long records() {
    return records;
  }

  /** Publishes the shard and returns its size and checksum. */
  public ShardFile commit() {
    if (committed != null) {
      return committed;
    }
    if (closed) {
      throw new IllegalStateException("JSONL shard: commit after close");
    }
    try {
      generator.flush();
      ShardFile file = out.finish();
      out.publish();
      committed = file;
      closed = true;
      return file;
    } catch (IOException e) {
      out.discard();
      closed = true;
      throw new UncheckedIOException("cannot publish JSONL shard", e);
    }
  }

  /** The published file's size and SHA-256; only after {@link #commit()}. */
  public ShardFile checksum() {
    if (committed == null) {
      throw new IllegalStateException("JSONL shard: no checksum before commit()");
    }
    return committed;
  }

  /** Abandons an uncommitted shard (its temporary file is deleted); after commit, does nothing. */
  @Override
  public void close() {
    if (!closed) {
      closed = true;
      out.discard();
    }
  }
}
