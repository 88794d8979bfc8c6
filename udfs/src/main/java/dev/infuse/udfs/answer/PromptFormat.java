package dev.infuse.udfs.answer;

import dev.infuse.udfs.llm.ChatMessage;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * A versioned way of asking one benchmark's questions: the chat prompt for {@code generate} mode
 * and the context and choices for {@code loglikelihood} mode. Every prediction records the version
 * tag it was made under ({@link #tag}, e.g. {@code quality-mcq@1}, {@code quality-mcq-cot@1},
 * {@code quality-mcq-ll@1}); {@link #version} is bumped on any change to the text this class
 * renders, since any such change can move scores.
 *
 * <p>Layout of the user message, each part only when present: the numbered context passages, the
 * premise (formats that take the question's document as part of the task, ANLI), the title, the
 * question (the hypothesis, for NLI), the lettered options, and one instruction line that names the
 * answer form the parser looks for first.
 */
public final class PromptFormat implements Serializable {
  private static final long serialVersionUID = 1L;

  /** How the answer is asked for, and so how it is parsed. */
  public enum Kind {
    MCQ,
    NUMERIC,
    FREE,
    LABEL
  }

  /** The harness's ANLI choices: the label each one stands for. */
  private static final Map<String, String> NLI_CHOICES =
      Map.of("entailment", "True", "neutral", "Neither", "contradiction", "False");

  private final String id;
  private final int version;
  private final String benchmark;
  private final Kind kind;
  private final boolean withTitle;
  private final boolean documentIsPremise;
  private final String system;

  /**
   * @param id the format's name, lowercase with dashes, without version
   * @param version an integer >= 1, bumped on any change that alters the rendered text
   * @param withTitle whether the document's title goes in the prompt (QuALITY: the title is how a
   *     closed-book model knows which story is asked about)
   * @param documentIsPremise whether the question's document is part of the task (ANLI's premise)
   */
  public PromptFormat(
      String id,
      int version,
      String benchmark,
      Kind kind,
      boolean withTitle,
      boolean documentIsPremise,
      String system) {
    if (id == null || !id.matches("[a-z0-9]+(-[a-z0-9]+)*")) {
      throw new IllegalArgumentException(
          "prompt format id: got " + id + ", expected lowercase words joined by '-'");
    }
    if (version < 1) {
      throw new IllegalArgumentException(
          "prompt format " + id + " version: got " + version + ", expected >= 1");
    }
    this.id = id;
    this.version = version;
    this.benchmark = Objects.requireNonNull(benchmark, "benchmark");
    this.kind = Objects.requireNonNull(kind, "kind");
    this.withTitle = withTitle;
    this.documentIsPremise = documentIsPremise;
    this.system = Objects.requireNonNull(system, "system");
  }

  public String id() {
    return id;
  }

  public int version() {
    return version;
  }

  public String benchmark() {
    return benchmark;
  }

  public Kind kind() {
    return kind;
  }

  /**
   * The tag of the generate prompt: {@code <id>@<version>}, or {@code <id>-cot@<version>} with
   * chain of thought.
   */
  public String tag(boolean chainOfThought) {
    return id + (chainOfThought ? "-cot" : "") + "@" + version;
  }

  /** The tag of the loglikelihood context and choices: {@code <id>-ll@<version>}. */
  public String loglikelihoodTag() {
    return id + "-ll@" + version;
  }

  /**
   * Whether loglikelihood mode can answer with this format: only when the answer is one of the
   * options.
   */
  public boolean supportsLoglikelihood() {
    return kind == Kind.MCQ || kind == Kind.LABEL;
  }

  /** The chat messages that ask {@code input} in generate mode. */
  public List<ChatMessage> messages(AnswerInput input, boolean chainOfThought) {
    StringBuilder user = body(input);
    if (kind == Kind.MCQ) {
      requireOptions(input);
      for (int i = 0; i < input.options().size(); i++) {
        user.append('(')
            .append(AnswerTypes.letter(i))
            .append(") ")
            .append(oneLine(input.options().get(i)))
            .append('\n');
      }
    }
    user.append('\n').append(instruction(input, chainOfThought));
    return List.of(new ChatMessage("system", system), new ChatMessage("user", user.toString()));
  }

  /**
   * The context each choice is scored after in loglikelihood mode: the same passages, title and
   * question as the chat prompt, without the lettered options, ending with {@code Answer:}. For NLI
   * it is the lm-evaluation-harness ANLI prompt, {@code <premise>\nQuestion: <hypothesis> True,
   * False, or Neither?\nAnswer:}.
   */
  public String loglikelihoodContext(AnswerInput input) {
    requireLoglikelihood();
    if (kind == Kind.LABEL) {
      StringBuilder text = passages(input);
      if (documentIsPremise && input.documentText() != null) {
        text.append(input.documentText().strip()).append('\n');
      }
      return text.append("Question: ")
          .append(oneLine(input.question()))
          .append(" True, False, or Neither?\nAnswer:")
          .toString();
    }
    return body(input).append("Answer:").toString();
  }

  /**
   * The continuations scored in loglikelihood mode, in option order (the scorer puts a space before
   * each): the option texts, or for NLI the harness's True / Neither / False for entailment /
   * neutral / contradiction.
   */
  public List<String> loglikelihoodChoices(AnswerInput input) {
    requireOptions(input);
    return loglikelihoodChoices(input.options());
  }

  /**
   * {@link #loglikelihoodChoices(AnswerInput)} from the options alone: what {@code score} divides
   * by for acc_norm, so that it normalises by the texts that were scored.
   */
  public List<String> loglikelihoodChoices(List<String> options) {
    requireLoglikelihood();
    List<String> choices = new ArrayList<>(options.size());
    for (String option : options) {
      String text =
          kind == Kind.LABEL
              ? NLI_CHOICES.getOrDefault(option.toLowerCase(Locale.ROOT), option)
              : option;
      choices.add(oneLine(text));
    }
    return choices;
  }

  private StringBuilder body(AnswerInput input) {
    StringBuilder text = passages(input);
    if (documentIsPremise && input.documentText() != null) {
      text.append("Premise: ").append(input.documentText().strip()).append('\n');
    }
    if (withTitle && input.title() != null && !input.title().isBlank()) {
      text.append("Title: ").append(oneLine(input.title())).append('\n');
    }
    text.append(kind == Kind.LABEL ? "Hypothesis: " : "Question: ")
        .append(input.question().strip())
        .append('\n');
    return text;
  }

  private static StringBuilder passages(AnswerInput input) {
    StringBuilder text = new StringBuilder();
    if (!input.passages().isEmpty()) {
      text.append("Context:\n");
      for (int i = 0; i < input.passages().size(); i++) {
        text.append('[')
            .append(i + 1)
            .append("] ")
            .append(input.passages().get(i).strip())
            .append("\n\n");
      }
    }
    return text;
  }

  private String instruction(AnswerInput input, boolean chainOfThought) {
    return switch (kind) {
      case MCQ ->
          chainOfThought
              ? "Think step by step, then give the letter of the correct option on the last line, in the form: The answer is (X)."
              : "Answer with the letter of the correct option only, in the form: The answer is (X).";
      case NUMERIC ->
          chainOfThought
              ? "Solve the problem step by step, then put the final numeric answer in \\boxed{}."
              : "Give only the final numeric answer, in \\boxed{}.";
      case FREE ->
          chainOfThought
              ? "Reason step by step, then end with a line of the form: Final answer: <your answer>."
              : "Answer concisely, on one line of the form: Final answer: <your answer>.";
      case LABEL -> {
        requireOptions(input);
        String labels =
            String.join(", ", input.options().subList(0, input.options().size() - 1))
                + " or "
                + input.options().get(input.options().size() - 1);
        yield (chainOfThought ? "Think step by step, then answer" : "Answer")
            + " with one word, "
            + labels
            + ", on the last line, in the form: Answer: <label>.";
      }
    };
  }

  private void requireLoglikelihood() {
    if (!supportsLoglikelihood()) {
      throw new IllegalArgumentException(
          "prompt format "
              + tag(false)
              + ": loglikelihood mode needs answer options, but "
              + benchmark
              + " answers are "
              + kind.name().toLowerCase(Locale.ROOT)
              + "; use mode generate");
    }
  }

  private void requireOptions(AnswerInput input) {
    if (input.options().size() < 2) {
      throw new IllegalArgumentException(
          "question "
              + input.questionId()
              + ": got "
              + input.options().size()
              + " option(s), expected at least 2 for prompt format "
              + tag(false));
    }
  }

  /**
   * Options and titles on one line each, so a line break inside one cannot look like the next
   * option.
   */
  private static String oneLine(String text) {
    return text.strip().replaceAll("\\s*\\R\\s*", " ");
  }

  @Override
  public String toString() {
    return id + "@" + version;
  }
}
