package dev.infuse.udfs.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The end of {@code bin/infuse bench}: the results the benchmarks recorded as one table (work,
 * Infuse, reference, value, goal, pass/FAIL), a count of passes and fails, the benchmark classes
 * that crashed, and the same as {@code bench.json} with the machine and the git sha. The launcher
 * runs {@link #main} after Maven has run the benchmark group.
 */
public final class BenchTable {
  static final List<String> COLUMNS =
      List.of("work", "Infuse", "reference", "value", "goal", "pass/FAIL");

  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private BenchTable() {}

  /** The table, its count line and, when any crashed, the classes that did. */
  public static String render(List<BenchResult> results, List<String> crashed) {
    List<List<String>> rows = new ArrayList<>();
    rows.add(COLUMNS);
    for (BenchResult r : results) {
      rows.add(
          List.of(
              r.work(),
              r.infuse(),
              r.reference(),
              r.valueText(),
              r.goalText(),
              r.pass() ? "pass" : "FAIL"));
    }
    int[] widths = new int[COLUMNS.size()];
    for (List<String> row : rows) {
      for (int c = 0; c < widths.length; c++) {
        widths[c] = Math.max(widths[c], row.get(c).length());
      }
    }
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < rows.size(); i++) {
      out.append(line(rows.get(i), widths)).append('\n');
      if (i == 0) {
        List<String> rule = new ArrayList<>();
        for (int width : widths) {
          rule.add("-".repeat(width));
        }
        out.append(line(rule, widths).replace(" | ", "-|-")).append('\n');
      }
    }
    long passed = results.stream().filter(BenchResult::pass).count();
    out.append(
        String.format(
            Locale.ROOT,
            "%d pass, %d FAIL, %d crashed%n",
            passed,
            results.size() - passed,
            crashed.size()));
    for (String name : crashed) {
      out.append("crashed: ").append(name).append('\n');
    }
    if (results.isEmpty() && crashed.isEmpty()) {
      out.append("no benchmark ran (does --only match a benchmark class?)\n");
    }
    return out.toString();
  }

  /** bench.json: the machine, the git sha, every result with its verdict, the counts, crashes. */
  public static void writeJson(
      Path file, List<BenchResult> results, List<String> crashed, String gitSha) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("machine", machine());
    json.put("git_sha", gitSha);
    json.put("results", results);
    long passed = results.stream().filter(BenchResult::pass).count();
    json.put("passed", passed);
    json.put("failed", results.size() - passed);
    json.put("crashed", crashed);
    try {
      if (file.getParent() != null) {
        Files.createDirectories(file.getParent());
      }
      Files.writeString(file, JSON.writeValueAsString(json) + "\n", StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }

  /** The machine that ran the benchmarks: this JVM runs right after them, on the same one. */
  static Map<String, Object> machine() {
    Map<String, Object> machine = new LinkedHashMap<>();
    machine.put("cores", Runtime.getRuntime().availableProcessors());
    machine.put(
        "java",
        System.getProperty("java.version") + " (" + System.getProperty("java.vendor") + ")");
    machine.put(
        "os",
        System.getProperty("os.name")
            + " "
            + System.getProperty("os.version")
            + " "
            + System.getProperty("os.arch"));
    return machine;
  }

  private static String line(List<String> cells, int[] widths) {
    StringBuilder line = new StringBuilder();
    for (int c = 0; c < cells.size(); c++) {
      if (c > 0) {
        line.append(" | ");
      }
      // The last column is not padded, so lines carry no trailing blanks.
      line.append(
          c == cells.size() - 1
              ? cells.get(c)
              : String.format("%-" + widths[c] + "s", cells.get(c)));
    }
    return line.toString();
  }

  /**
   * {@code --results FILE --json FILE --git-sha SHA [--maven-log FILE]}: prints the table of the
   * results file (none recorded is an empty table) and writes bench.json. Exits 1 when a benchmark
   * crashed and 2 on bad arguments; a missed goal never changes the exit code.
   */
  public static void main(String[] args) {
    Map<String, String> options = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i += 2) {
      if (!List.of("--results", "--json", "--git-sha", "--maven-log").contains(args[i])
          || i + 1 >= args.length) {
        System.err.println(
            "usage: BenchTable --results FILE --json FILE --git-sha SHA [--maven-log FILE];"
                + " got "
                + String.join(" ", args));
        System.exit(2);
      }
      options.put(args[i], args[i + 1]);
    }
    if (!options.containsKey("--results") || !options.containsKey("--json")) {
      System.err.println("BenchTable: --results and --json are required");
      System.exit(2);
    }
    Path resultsFile = Path.of(options.get("--results"));
    List<BenchResult> results =
        Files.exists(resultsFile) ? BenchResults.read(resultsFile) : List.of();
    List<String> crashed = List.of();
    if (options.containsKey("--maven-log")) {
      try {
        // Decoded leniently: a test's odd byte in the log must not hide the table.
        byte[] log = Files.readAllBytes(Path.of(options.get("--maven-log")));
        crashed = MavenTestLog.crashed(new String(log, StandardCharsets.UTF_8).lines().toList());
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read " + options.get("--maven-log"), e);
      }
    }
    System.out.print(render(results, crashed));
    writeJson(
        Path.of(options.get("--json")),
        results,
        crashed,
        options.getOrDefault("--git-sha", "unknown"));
    System.out.flush();
    if (!crashed.isEmpty()) {
      System.exit(1);
    }
  }
}
