package dev.infuse.jobs.run;

/** Version and commit of the running build, recorded with every run. */
public final class BuildInfo {
  private BuildInfo() {}

  /** The jar's Implementation-Version, or {@code dev} when run from classes. */
  public static String version() {
    String version = BuildInfo.class.getPackage().getImplementationVersion();
    return version == null ? "dev" : version;
  }

  /**
   * The git commit: {@code -Dinfuse.git.sha} (bin/infuse sets it), else {@code INFUSE_GIT_SHA} from
   * the environment (set it in a cluster job definition), else {@code unknown}.
   */
  public static String gitSha() {
    String sha = System.getProperty("infuse.git.sha");
    if (sha == null || sha.isBlank()) {
      sha = System.getenv("INFUSE_GIT_SHA");
    }
    return sha == null || sha.isBlank() ? "unknown" : sha;
  }
}
