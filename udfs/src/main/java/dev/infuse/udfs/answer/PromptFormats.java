package dev.infuse.udfs.answer;

import dev.infuse.udfs.answer.PromptFormat.Kind;
import dev.infuse.udfs.common.Names;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The registry of prompt formats, one per benchmark (questions.benchmark). Registering a benchmark
 * twice fails; an unknown benchmark fails with the nearest name and the list of known ones.
 */
public final class PromptFormats {
  private static final Map<String, PromptFormat> BY_BENCHMARK = new LinkedHashMap<>();

  static {
    register(
        new PromptFormat(
            "quality-mcq",
            1,
            "quality",
            Kind.MCQ,
            true,
            false,
            "You answer multiple-choice questions about a story or article."));
    register(
        new PromptFormat(
            "longhealth-mcq",
            1,
            "longhealth",
            Kind.MCQ,
            false,
            false,
            "You answer multiple-choice questions about a patient's clinical records."));
    register(
        new PromptFormat(
            "medqa-mcq",
            1,
            "medqa",
            Kind.MCQ,
            false,
            false,
            "You answer multiple-choice questions from medical licensing exams."));
    register(
        new PromptFormat(
            "financebench-free",
            1,
            "financebench",
            Kind.FREE,
            false,
            false,
            "You answer questions about companies' financial filings precisely, with units."));
    register(
        new PromptFormat(
            "gsm8k-boxed",
            1,
            "gsm8k",
            Kind.NUMERIC,
            false,
            false,
            "You solve grade-school math word problems."));
    register(
        new PromptFormat(
            "anli-label",
            1,
            "anli",
            Kind.LABEL,
            false,
            true,
            "You judge whether a premise entails, contradicts or is neutral towards a hypothesis."));
  }

  private PromptFormats() {}

  private static void register(PromptFormat format) {
    if (BY_BENCHMARK.putIfAbsent(format.benchmark(), format) != null) {
      throw new IllegalStateException(
          "prompt format for benchmark " + format.benchmark() + " registered twice");
    }
  }

  /** The benchmarks that have a format, in registration order. */
  public static List<String> benchmarks() {
    return List.copyOf(BY_BENCHMARK.keySet());
  }

  /**
   * The format of {@code benchmark}; unknown names fail with "did you mean" and the known names.
   */
  public static PromptFormat forBenchmark(String benchmark) {
    PromptFormat format = BY_BENCHMARK.get(benchmark);
    if (format == null) {
      String hint =
          Names.nearest(benchmark, BY_BENCHMARK.keySet())
              .map(n -> " (did you mean " + n + "?)")
              .orElse("");
      throw new IllegalArgumentException(
          "benchmark: got "
              + benchmark
              + hint
              + ", expected one of "
              + String.join(", ", BY_BENCHMARK.keySet()));
    }
    return format;
  }
}
