package dev.infuse.udfs.lm;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * Writes a directory so that readers see all of it or none of it: the files go into a hidden
 * sibling, which is then renamed into place. A crash mid-write leaves only a hidden temp directory
 * behind.
 */
public final class AtomicDirectory {
  /** Fills the directory it is given. */
  @FunctionalInterface
  public interface Contents {
    void writeInto(Path directory) throws IOException;
  }

  private AtomicDirectory() {}

  /**
   * Writes {@code target} through {@code contents}. An existing {@code target} is replaced; between
   * moving it aside and moving the new one in, {@code target} is briefly absent but never partial.
   */
  public static void write(Path target, Contents contents) {
    Path absolute = target.toAbsolutePath().normalize();
    Path parent = absolute.getParent();
    String name = absolute.getFileName().toString();
    Path temp = parent.resolve("." + name + ".tmp-" + UUID.randomUUID());
    try {
      Files.createDirectories(parent);
      Files.createDirectory(temp);
      contents.writeInto(temp);
      Path old = null;
      if (Files.exists(absolute)) {
        old = parent.resolve("." + name + ".old-" + UUID.randomUUID());
        move(absolute, old);
      }
      move(temp, absolute);
      if (old != null) {
        deleteRecursively(old);
      }
    } catch (IOException e) {
      deleteQuietly(temp);
      throw new UncheckedIOException("cannot write " + absolute, e);
    } catch (RuntimeException e) {
      deleteQuietly(temp);
      throw e;
    }
  }

  /** Deletes a directory tree; a missing one is fine. */
  public static void deleteRecursively(Path directory) throws IOException {
    if (!Files.exists(directory)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(directory)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }

  private static void move(Path from, Path to) throws IOException {
    try {
      Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
    } catch (AtomicMoveNotSupportedException e) {
      // Same parent, so this only happens on odd file systems; a plain rename is the best left.
      Files.move(from, to);
    }
  }

  private static void deleteQuietly(Path directory) {
    try {
      deleteRecursively(directory);
    } catch (IOException e) {
      // Only a hidden temp directory is left; the original error is the one worth reporting.
    }
  }
}
