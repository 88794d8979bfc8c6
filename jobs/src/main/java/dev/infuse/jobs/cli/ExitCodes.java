package dev.infuse.jobs.cli;

import dev.infuse.jobs.config.ConfigException;
import dev.infuse.jobs.run.RunStatus;
import dev.infuse.jobs.run.StepFailedException;
import java.io.PrintWriter;
import java.util.function.IntSupplier;

/** What {@code infuse} exits with: 0 success, 1 failure, 2 bad usage or config. */
final class ExitCodes {
  static final int OK = 0;
  static final int FAILED = 1;
  static final int USAGE = 2;

  private ExitCodes() {}

  static int of(RunStatus status) {
    return switch (status) {
      case SUCCEEDED -> OK;
      case FAILED -> FAILED;
      case INVALID_CONFIG -> USAGE;
    };
  }

  /** Prints a config that cannot be used and returns the usage code. */
  static int invalidConfig(PrintWriter err, ConfigException e) {
    err.println("error: " + e.getMessage());
    err.flush();
    return USAGE;
  }

  /**
   * Runs a chain of recorded jobs ({@code demo}, {@code evaluate}) and maps how it ended: a failed
   * step exits as that step did, a config that cannot be used exits 2.
   */
  static int ofChain(String command, PrintWriter err, IntSupplier chain) {
    try {
      return chain.getAsInt();
    } catch (StepFailedException e) {
      err.println("error: " + command + " stopped: " + e.getMessage());
      err.flush();
      return of(e.status());
    } catch (ConfigException e) {
      return invalidConfig(err, e);
    }
  }
}
