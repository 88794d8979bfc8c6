package dev.infuse.jobs.llm;

import java.util.function.Consumer;

/**
 * Points of the LLM call path where a test of this package can make a run fail as a crash at that
 * point would, to check that no call is paid for twice afterwards. Nothing is installed outside
 * such a test, and then every point does nothing. A fault runs in the JVM that reaches its point,
 * so executor points only work with a local master.
 */
final class CrashPoints {
  /** The points, in the order a wave reaches them. */
  enum Point {
    /**
     * On an executor, in the task's thread, once every call of its partition has been journaled and
     * before the task returns its rows.
     */
    TASK_CALLS_JOURNALED,
    /** On the driver, once a wave is merged into {@code llm_calls} and before its journal goes. */
    WAVE_MERGED
  }

  /** What {@link #install} returns: closing it removes the fault. */
  interface Installed extends AutoCloseable {
    @Override
    void close();
  }

  private static volatile Consumer<Point> fault;

  private CrashPoints() {}

  static void reach(Point point) {
    Consumer<Point> installed = fault;
    if (installed != null) {
      installed.accept(point);
    }
  }

  /** Runs {@code onReach} at every point reached until the returned handle is closed. */
  static Installed install(Consumer<Point> onReach) {
    fault = onReach;
    return () -> fault = null;
  }
}
