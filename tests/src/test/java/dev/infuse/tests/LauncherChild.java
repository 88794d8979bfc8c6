package dev.infuse.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.jobs.SparkTestSession;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A finished {@code bin/infuse} child process, as the process benchmarks time it: its wall time and
 * its peak resident memory.
 *
 * @param seconds wall time from start to exit
 * @param peakRssGb the JVM's peak resident set (VmHWM), polled while it ran
 */
record LauncherChild(double seconds, double peakRssGb) {

  /**
   * Runs {@code bin/infuse args} in {@code dir} with {@code env} applied to the inherited
   * environment (a null value removes the variable); fails with the end of its output when it exits
   * non-zero or runs past {@code limitMinutes}.
   */
  static LauncherChild run(Path dir, Map<String, String> env, int limitMinutes, String... args)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(SparkTestSession.repoRoot().resolve("bin/infuse").toString());
    command.addAll(List.of(args));
    Path log = Files.createTempFile(dir, args[0] + "-", ".log");
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    env.forEach(
        (name, value) -> {
          if (value == null) {
            builder.environment().remove(name);
          } else {
            builder.environment().put(name, value);
          }
        });
    long started = System.nanoTime();
    Process process = builder.start();
    // The launcher execs java, so its pid is the JVM's.
    Path status = Path.of("/proc", Long.toString(process.pid()), "status");
    long peakKb = 0;
    long deadline = started + TimeUnit.MINUTES.toNanos(limitMinutes);
    while (!process.waitFor(500, TimeUnit.MILLISECONDS) && System.nanoTime() < deadline) {
      peakKb = Math.max(peakKb, highWaterKb(status));
    }
    double seconds = (System.nanoTime() - started) / 1e9;
    boolean finished = !process.isAlive();
    if (!finished) {
      process.destroyForcibly().waitFor();
    }
    String output = Files.readString(log, StandardCharsets.UTF_8);
    String tail = output.substring(Math.max(0, output.length() - 4000));
    assertThat(finished)
        .as("bin/infuse %s finished within %d minutes:%n%s", args[0], limitMinutes, tail)
        .isTrue();
    assertThat(process.exitValue()).as("bin/infuse %s exit code:%n%s", args[0], tail).isZero();
    return new LauncherChild(seconds, peakKb / 1024.0 / 1024.0);
  }

  /** VmHWM (peak resident set) of a live process in kB; 0 once it is gone. */
  private static long highWaterKb(Path status) {
    try {
      for (String line : Files.readAllLines(status)) {
        if (line.startsWith("VmHWM:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", ""));
        }
      }
    } catch (IOException | RuntimeException e) {
      // The process ended between the wait and the read.
    }
    return 0;
  }
}
