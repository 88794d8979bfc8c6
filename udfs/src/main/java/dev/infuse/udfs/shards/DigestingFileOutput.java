package dev.infuse.udfs.shards;

import java.io.BufferedOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.UUID;

/**
 * A file written under a hidden temporary name beside its target, counting and SHA-256-hashing its
 * bytes as they stream out; {@link #publish()} syncs it and renames it onto the target, so readers
 * see the whole file or none. {@link #discard()} deletes the temporary file.
 */
public final class DigestingFileOutput extends OutputStream {
  private final Path target;
  private final Path temp;
  private final FileOutputStream file;
  private final OutputStream buffered;
  private final MessageDigest digest;
  private long bytes;
  private boolean closed;

  public DigestingFileOutput(Path target) throws IOException {
    this.target = target.toAbsolutePath().normalize();
    Files.createDirectories(this.target.getParent());
    this.temp =
        this.target.resolveSibling("." + this.target.getFileName() + ".tmp-" + UUID.randomUUID());
    this.file = new FileOutputStream(temp.toFile());
    this.buffered = new BufferedOutputStream(file, 1 << 16);
    try {
      this.digest = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  @Override
  public void write(int b) throws IOException {
    buffered.write(b);
    digest.update((byte) b);
    bytes++;
  }

  @Override
  public void write(byte[] data, int offset, int length) throws IOException {
    buffered.write(data, offset, length);
    digest.update(data, offset, length);
    bytes += length;
  }

  public long bytes() {
    return bytes;
  }

  Path temp() {
    return temp;
  }

  /**
   * Flushes, syncs and closes the temporary file; the returned digest describes what {@link
   * #publish()} moves.
   */
  public ShardFile finish() throws IOException {
    if (!closed) {
      buffered.flush();
      file.getFD().sync();
      buffered.close();
      closed = true;
    }
    return new ShardFile(target, bytes, HexFormat.of().formatHex(digest.digest()));
  }

  /** Renames the finished temporary file onto the target, replacing any file there. */
  public void publish() throws IOException {
    try {
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      // Same directory, so only odd file systems get here; a plain replace is the best left.
      Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  /** Closes and deletes the temporary file, ignoring failures: used on abort paths only. */
  public void discard() {
    try {
      if (!closed) {
        closed = true;
        buffered.close();
      }
    } catch (IOException ignored) {
      // Nothing useful to do: the file is deleted next.
    }
    try {
      Files.deleteIfExists(temp);
    } catch (IOException ignored) {
      // A leftover hidden temp file is harmless; the target was never touched.
    }
  }

  @Override
  public void close() throws IOException {
    finish();
  }
}
