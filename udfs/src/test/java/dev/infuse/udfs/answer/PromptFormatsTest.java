package dev.infuse.udfs.answer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.infuse.udfs.llm.ChatMessage;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every benchmark's prompt renders with its version, and asks for the form the parser reads first.
 */
class PromptFormatsTest {
  private static final AnswerInput QUALITY =
      new AnswerInput(
          "quality:1",
          "quality",
          "mcq",
          "Why is Korvin in a cell?",
          List.of("He is a spy", "He is ill", "He is a guest", "He is lost"),
          "LOST IN TRANSLATION",
          "The whole article…",
          List.of("Korvin lay in the cell.", "The Tr'en\nwere efficient."));

  @Test
  void qualityRendersContextTitleQuestionAndLetteredOptions() {
    PromptFormat format = PromptFormats.forBenchmark("quality");
    assertThat(format.tag(false)).isEqualTo("quality-mcq@1");
    assertThat(format.tag(true)).isEqualTo("quality-mcq-cot@1");
    assertThat(format.loglikelihoodTag()).isEqualTo("quality-mcq-ll@1");
    List<ChatMessage> messages = format.messages(QUALITY, false);
    assertThat(messages).extracting(ChatMessage::role).containsExactly("system", "user");
    assertThat(messages.get(1).content())
        .isEqualTo(
            """
        Context:
        [1] Korvin lay in the cell.

        [2] The Tr'en
        were efficient.

        Title: LOST IN TRANSLATION
        Question: Why is Korvin in a cell?
        (A) He is a spy
        (B) He is ill
        (C) He is a guest
        (D) He is lost

        Answer with the letter of the correct option only, in the form: The answer is (X).""");
    assertThat(format.messages(QUALITY, true).get(1).content())
        .contains("Think step by step")
        .endsWith("The answer is (X).");
    // The article itself never enters a QuALITY prompt: closed book means the title alone.
    assertThat(messages.get(1).content()).doesNotContain("The whole article");
  }

  @Test
  void closedBookQualityHasNoContextBlock() {
    AnswerInput closed =
        new AnswerInput(
            "quality:1", "quality", "mcq", "Why?", List.of("a", "b"), "T", null, List.of());
    assertThat(PromptFormats.forBenchmark("quality").messages(closed, false).get(1).content())
        .startsWith("Title: T\nQuestion: Why?\n(A) a\n(B) b\n");
  }

  @Test
  void loglikelihoodContextAndChoices() {
    PromptFormat quality = PromptFormats.forBenchmark("quality");
    assertThat(quality.loglikelihoodContext(QUALITY))
        .endsWith("Title: LOST IN TRANSLATION\nQuestion: Why is Korvin in a cell?\nAnswer:")
        .doesNotContain("(A)");
    assertThat(quality.loglikelihoodChoices(QUALITY))
        .containsExactly("He is a spy", "He is ill", "He is a guest", "He is lost");
    AnswerInput nli =
        new AnswerInput(
            "anli:1",
            "anli",
            "label",
            "The man is asleep.",
            List.of("entailment", "neutral", "contradiction"),
            null,
            "A man runs a marathon.",
            List.of());
    PromptFormat anli = PromptFormats.forBenchmark("anli");
    assertThat(anli.loglikelihoodContext(nli))
        .isEqualTo(
            "A man runs a marathon.\nQuestion: The man is asleep. True, False, or Neither?\nAnswer:");
    assertThat(anli.loglikelihoodChoices(nli)).containsExactly("True", "Neither", "False");
    assertThat(anli.messages(nli, false).get(1).content())
        .startsWith("Premise: A man runs a marathon.\nHypothesis: The man is asleep.\n")
        .endsWith(
            "Answer with one word, entailment, neutral or contradiction, on the last line, in the form: Answer: <label>.");
  }

  @Test
  void everyBenchmarkHasAVersionedFormatAskingForItsAnswerForm() {
    assertThat(PromptFormats.benchmarks())
        .containsExactly("quality", "longhealth", "medqa", "financebench", "gsm8k", "anli");
    AnswerInput five =
        new AnswerInput(
            "longhealth:1",
            "longhealth",
            "mcq",
            "Which drug?",
            List.of("a", "b", "c", "d", "e"),
            null,
            null,
            List.of());
    assertThat(PromptFormats.forBenchmark("longhealth").messages(five, false).get(1).content())
        .contains("(E) e");
    assertThat(PromptFormats.forBenchmark("medqa").tag(false)).isEqualTo("medqa-mcq@1");
    AnswerInput math =
        new AnswerInput("gsm8k:1", "gsm8k", "numeric", "2 + 2?", null, null, null, null);
    PromptFormat gsm8k = PromptFormats.forBenchmark("gsm8k");
    assertThat(gsm8k.tag(true)).isEqualTo("gsm8k-boxed-cot@1");
    assertThat(gsm8k.messages(math, true).get(1).content())
        .endsWith("put the final numeric answer in \\boxed{}.");
    assertThat(gsm8k.supportsLoglikelihood()).isFalse();
    assertThatThrownBy(() -> gsm8k.loglikelihoodContext(math))
        .hasMessageContaining("use mode generate");
    AnswerInput finance =
        new AnswerInput(
            "financebench:1",
            "financebench",
            "free",
            "What was revenue?",
            null,
            null,
            null,
            List.of("Revenue was $5M."));
    assertThat(PromptFormats.forBenchmark("financebench").messages(finance, false).get(1).content())
        .startsWith("Context:\n[1] Revenue was $5M.")
        .endsWith("Final answer: <your answer>.");
  }

  @Test
  void unknownBenchmarkSuggestsTheNearest() {
    assertThatThrownBy(() -> PromptFormats.forBenchmark("qualty"))
        .hasMessageContaining("did you mean quality?")
        .hasMessageContaining("gsm8k");
  }
}
