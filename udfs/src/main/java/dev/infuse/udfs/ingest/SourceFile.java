package dev.infuse.udfs.ingest;

import java.io.IOException;
import java.io.InputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;

/**
 * One input file: its bytes in memory, or a way to open them as a stream. Readers take bytes rather
 * than text so that they can find invalid UTF-8 themselves and quarantine just the records it
 * touches. Line-oriented readers ({@link JsonLines}) read a streamed file a line at a time, so a
 * file far larger than the heap can be ingested; readers that need the whole file call {@link
 * #content()}, which reads a streamed file whole.
 */
public final class SourceFile {
  /** Opens the file's bytes from the start; called at most once per read. */
  @FunctionalInterface
  public interface Opener extends Serializable {
    InputStream open() throws IOException;
  }

  private final String path;
  private final Opener opener;
  private byte[] content;

  /**
   * A file whose bytes are in memory.
   *
   * @param path the full path or URI it was read from
   * @param content the file's bytes
   */
  public SourceFile(String path, byte[] content) {
    this.path = path;
    this.content = content;
    this.opener = null;
  }

  private SourceFile(String path, Opener opener) {
    this.path = path;
    this.opener = opener;
  }

  /** A file read from {@code opener} when a reader asks for it. */
  public static SourceFile streamed(String path, Opener opener) {
    return new SourceFile(path, opener);
  }

  /** The full path or URI it was read from. */
  public String path() {
    return path;
  }

  /** The last path segment: {@code quality_dev_sample.jsonl}. */
  public String fileName() {
    int slash = path.lastIndexOf('/');
    return slash < 0 ? path : path.substring(slash + 1);
  }

  /** The whole file's bytes; a streamed file is read whole on the first call. */
  public byte[] content() {
    if (content == null) {
      try (InputStream in = opener.open()) {
        content = in.readAllBytes();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read " + path, e);
      }
    }
    return content;
  }

  /** Whether the bytes are still to be read from a stream (and need not all be held at once). */
  boolean streamed() {
    return content == null;
  }

  /** Opens a streamed file's bytes. */
  InputStream open() throws IOException {
    return opener.open();
  }
}
