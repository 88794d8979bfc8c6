package dev.infuse.udfs.ingest;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Finds the real benchmark files next to the repository, as the data READMEs describe them. */
final class SharedBenchmarks {
  private SharedBenchmarks() {}

  /** {@code <repo root>/../shared/benchmarks/<relative>} as a reader input. */
  static SourceFile file(String relative) {
    return read(root().resolve(relative));
  }

  /** A test fixture from the classpath. */
  static SourceFile resource(String name) {
    try {
      return read(Path.of(SharedBenchmarks.class.getClassLoader().getResource(name).toURI()));
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  static SourceFile read(Path path) {
    try {
      return new SourceFile(path.toString(), Files.readAllBytes(path));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Path root() {
    return repoRoot().resolve("..").resolve("shared").resolve("benchmarks").normalize();
  }

  private static Path repoRoot() {
    String configured = System.getProperty("infuse.repo.root");
    if (configured != null && !configured.isBlank()) {
      return Path.of(configured).toAbsolutePath();
    }
    Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath();
    while (dir != null) {
      if (Files.exists(dir.resolve("pom.xml")) && Files.isDirectory(dir.resolve("udfs"))) {
        return dir;
      }
      dir = dir.getParent();
    }
    throw new IllegalStateException("no repository root above " + System.getProperty("user.dir"));
  }
}
