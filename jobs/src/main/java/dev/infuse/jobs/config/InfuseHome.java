package dev.infuse.jobs.config;

import java.nio.file.Path;

/**
 * The Infuse installation directory (the repository root), where {@code conf/}, {@code samples/}
 * and {@code data-contracts/} live: {@code -Dinfuse.home} (bin/infuse sets it), else {@code
 * INFUSE_HOME}, else the working directory.
 */
public final class InfuseHome {
  private InfuseHome() {}

  public static Path path() {
    String home = System.getProperty("infuse.home");
    if (home == null || home.isBlank()) {
      home = System.getenv("INFUSE_HOME");
    }
    return Path.of(home == null || home.isBlank() ? "." : home).toAbsolutePath().normalize();
  }

  /** A path under the home, unless {@code relative} is already absolute or a URI. */
  public static Path resolve(String relative) {
    Path path = Path.of(relative);
    return path.isAbsolute() ? path : path().resolve(path).normalize();
  }
}
