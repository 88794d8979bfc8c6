package dev.infuse.udfs;

import java.nio.file.Files;
import java.nio.file.Path;

/** Where the repository and the shared benchmark data are, for tests that read real files. */
public final class RepoPaths {
  private RepoPaths() {}

  /**
   * {@code -Dinfuse.repo.root} (surefire sets it), else the nearest directory above user.dir
   * holding pom.xml and udfs/.
   */
  public static Path repoRoot() {
    String configured = System.getProperty("infuse.repo.root");
    if (configured != null && !configured.isBlank()) {
      return Path.of(configured).toAbsolutePath().normalize();
    }
    Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath();
    for (Path d = dir; d != null; d = d.getParent()) {
      if (Files.isRegularFile(d.resolve("pom.xml")) && Files.isDirectory(d.resolve("udfs"))) {
        return d;
      }
    }
    throw new IllegalStateException("no repo root (pom.xml next to udfs/) above " + dir);
  }

  /**
   * {@code <repo root>/../shared}: the public benchmark data, beside the repository here and in CI.
   */
  public static Path shared() {
    return repoRoot().resolve("../shared").normalize();
  }
}
