package dev.infuse.jobs.answer;

import dev.infuse.jobs.generate.PromptLibrary;
import dev.infuse.udfs.answer.AnswerInput;
import dev.infuse.udfs.answer.AnswerTypes;
import dev.infuse.udfs.llm.ChatMessage;
import dev.infuse.udfs.prompt.PromptTemplate;
import java.io.Serializable;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The few-shot, chain-of-thought reader for base models ({@code answer.reader: few_shot_cot}): a
 * versioned template of worked examples in EntiGraph's reader layout, completed with one question,
 * its retrieved contexts (none closed book) and its lettered choices. The model continues after
 * "Thought process:" and ends with "Answer: X.", which the answer parser reads.
 *
 * <p>It travels to the executors as the template's JSON, and is parsed there once.
 */
final class FewShotReader implements Serializable {
  private static final long serialVersionUID = 1L;

  private final String templateJson;
  private final String tag;
  private transient PromptTemplate template;

  FewShotReader(PromptTemplate template) {
    List<String> missing =
        List.of("instructions", "contexts", "question", "choices").stream()
            .filter(name -> !template.placeholders().contains(name))
            .toList();
    if (!missing.isEmpty()) {
      throw new IllegalArgumentException(
          "prompt "
              + template.id()
              + "@"
              + template.version()
              + ": expected the placeholders {{instructions}}, {{contexts}}, {{question}} and"
              + " {{choices}}, missing "
              + missing);
    }
    this.templateJson = PromptLibrary.toJson(template);
    this.tag = template.id() + "@" + template.version();
    this.template = template;
  }

  /** The prompt version every prediction records, e.g. {@code reader-mcq-fewshot-cot@1}. */
  String tag() {
    return tag;
  }

  /** The one user message that asks {@code input}. */
  List<ChatMessage> messages(AnswerInput input) {
    if (template == null) {
      template = PromptLibrary.fromJson(templateJson);
    }
    return template.render(vars(input)).stream()
        .map(m -> new ChatMessage(m.role(), m.content()))
        .toList();
  }

  /** The values of the placeholders for one question. */
  static Map<String, String> vars(AnswerInput input) {
    int n = input.passages().size();
    StringBuilder contexts = new StringBuilder();
    for (int i = 0; i < n; i++) {
      contexts
          .append("*Context ")
          .append(i + 1)
          .append("*\n")
          .append(input.passages().get(i).strip())
          .append("\n\n");
    }
    StringBuilder choices = new StringBuilder();
    for (int i = 0; i < input.options().size(); i++) {
      choices
          .append(AnswerTypes.letter(i))
          .append(". ")
          .append(oneLine(input.options().get(i)))
          .append('\n');
    }
    String question = input.question().strip();
    if (input.title() != null && !input.title().isBlank()) {
      // EntiGraph's article context, without the author and year the documents table may lack.
      question = "In the context of \"" + oneLine(input.title()) + "\", " + uncapitalize(question);
    }
    String instructions =
        n == 0
            ? "Answer the following question."
            : String.format(
                Locale.ROOT,
                "Answer the following question using the %d supporting context%s below.",
                n,
                n == 1 ? "" : "s");
    return Map.of(
        "instructions",
        instructions,
        "contexts",
        contexts.toString(),
        "question",
        question + " There is only one correct choice.",
        "choices",
        choices.toString());
  }

  /** Lower-cases the first letter unless the first word is an acronym or a name like "I". */
  private static String uncapitalize(String text) {
    if (text.length() < 2 || !Character.isUpperCase(text.charAt(0))) {
      return text;
    }
    int wordEnd = 0;
    while (wordEnd < text.length() && Character.isLetter(text.charAt(wordEnd))) {
      wordEnd++;
    }
    String word = text.substring(0, wordEnd);
    boolean keep = word.equals("I") || word.chars().skip(1).anyMatch(Character::isUpperCase);
    return keep ? text : Character.toLowerCase(text.charAt(0)) + text.substring(1);
  }

  private static String oneLine(String text) {
    return text.strip().replaceAll("\\s*\\R\\s*", " ");
  }
}
