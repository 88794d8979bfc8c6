package dev.infuse.udfs.ingest;

import dev.infuse.udfs.RepoPaths;
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
    return RepoPaths.shared().resolve("benchmarks");
  }
}
