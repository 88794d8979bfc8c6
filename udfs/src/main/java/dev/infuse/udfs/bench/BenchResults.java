package dev.infuse.udfs.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Where benchmarks leave their results: each {@link #record} prints the line and, when the system
 * property {@value #RESULTS_PROPERTY} names a file, appends it there as one JSON line. {@code
 * bin/infuse bench} sets the property, runs the benchmark group and prints the table from the file;
 * a benchmark run straight from Maven prints its lines only.
 */
public final class BenchResults {
  /** The system property naming the JSON-lines file results are appended to. */
  public static final String RESULTS_PROPERTY = "infuse.bench.results";

  private static final ObjectMapper JSON = new ObjectMapper();

  private BenchResults() {}

  /** Prints {@code result} and appends it to the results file, if one is named. */
  public static synchronized void record(BenchResult result) {
    System.out.printf(
        "bench: %s | %s | %s | %s | goal %s | %s%n",
        result.work(),
        result.infuse(),
        result.reference(),
        result.valueText(),
        result.goalText(),
        result.pass() ? "pass" : "FAIL");
    String file = System.getProperty(RESULTS_PROPERTY);
    if (file == null || file.isBlank()) {
      return;
    }
    try {
      Path path = Path.of(file);
      if (path.getParent() != null) {
        Files.createDirectories(path.getParent());
      }
      Files.writeString(
          path,
          JSON.writeValueAsString(result) + "\n",
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot append a benchmark result to " + file, e);
    }
  }

  /** Every result in a JSON-lines file {@link #record} wrote, in order. */
  public static List<BenchResult> read(Path file) {
    try {
      List<BenchResult> results = new ArrayList<>();
      for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
        if (!line.isBlank()) {
          results.add(JSON.readValue(line, BenchResult.class));
        }
      }
      return results;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read benchmark results from " + file, e);
    }
  }
}
