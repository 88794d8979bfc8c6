package dev.infuse.udfs.maporl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.infuse.udfs.generate.GenerationTask;
import dev.infuse.udfs.llm.ChatMessage;
import dev.infuse.udfs.llm.ChatRequest;
import dev.infuse.udfs.llm.ExtractiveClient;
import dev.infuse.udfs.llm.GenerationParams;
import dev.infuse.udfs.llm.LlmBackend;
import dev.infuse.udfs.llm.LlmCallException;
import dev.infuse.udfs.llm.LlmSettings;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

class ExtractiveDiscussantTest {
  private static final ExtractiveClient CLIENT =
      new ExtractiveClient(
          new LlmSettings(
              LlmBackend.EXTRACTIVE, null, "extractive", null, 4, 30, 60, 1, 100, 1000));
  private static final String QUESTION = "Tom has 3 apples and buys 4 more. How many now?";

  private static String complete(Map<String, String> task, long seed) {
    GenerationParams params = new GenerationParams(0, 0.7, 1.0, 1, null, seed, false, null);
    try {
      return CLIENT
          .complete(
              new ChatRequest(
                  "extractive", List.of(new ChatMessage("user", "Question")), params, task))
          .get()
          .text();
    } catch (InterruptedException | ExecutionException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void turnZeroGuessesFromTheQuestionAndAgentsCanDisagree() {
    Map<String, String> task =
        ExtractiveDiscussant.task(QUESTION, QuestionKind.GSM8K, List.of(), 0, null, List.of());
    Set<String> answers = new HashSet<>();
    for (long seed = 0; seed < 20; seed++) {
      String text = complete(task, seed);
      assertThat(text).contains("Model-free").endsWith("}");
      assertThat(complete(task, seed)).as("deterministic").isEqualTo(text);
      ExtractedAnswer answer = BoxedAnswers.extract(text, QuestionKind.GSM8K, 0);
      assertThat(answer.valid()).isTrue();
      answers.add(answer.answer());
    }
    // last number 4, sum 7, product 12, difference 1
    assertThat(answers).isSubsetOf("4", "7", "12", "1").hasSizeGreaterThan(1);
  }

  @Test
  void arithmeticGuesses() {
    assertThat(ExtractiveDiscussant.arithmeticGuesses("1,200 pens and 0.5 boxes"))
        .containsExactly("0.5", "1200.5", "600", "1199.5");
    assertThat(ExtractiveDiscussant.arithmeticGuesses("no numbers")).containsExactly("0");
  }

  @Test
  void anliAndMcqGuessesAreValidAnswers() {
    Map<String, String> anli =
        ExtractiveDiscussant.task(
            "Premise: p. Hypothesis: h.", QuestionKind.ANLI, List.of(), 0, "", List.of());
    Map<String, String> mcq =
        ExtractiveDiscussant.task(
            "Which fruit is red?",
            QuestionKind.MCQ,
            List.of("a banana", "a red apple", "a lime"),
            0,
            "",
            List.of());
    Set<String> letters = new HashSet<>();
    for (long seed = 0; seed < 20; seed++) {
      assertThat(BoxedAnswers.extract(complete(anli, seed), QuestionKind.ANLI, 0).valid()).isTrue();
      ExtractedAnswer letter = BoxedAnswers.extract(complete(mcq, seed), QuestionKind.MCQ, 3);
      assertThat(letter.valid()).isTrue();
      letters.add(letter.answer());
    }
    // the overlap choice (B, sharing "red") comes up, and so do random letters
    assertThat(letters).contains("B").isSubsetOf("A", "B", "C");
  }

  @Test
  void laterTurnsFollowTheMajorityAndTiesKeepTheirOwn() {
    assertThat(ExtractiveDiscussant.majority("7", List.of("12", "12"))).isEqualTo("12");
    assertThat(ExtractiveDiscussant.majority("7", List.of("12"))).isEqualTo("7");
    assertThat(ExtractiveDiscussant.majority("invalid", List.of("12", "4"))).isEqualTo("12");
    assertThat(ExtractiveDiscussant.majority("", List.of("invalid"))).isNull();
    Map<String, String> task =
        ExtractiveDiscussant.task(
            QUESTION, QuestionKind.GSM8K, List.of(), 1, "7", List.of("4", "4"));
    String text = complete(task, 3);
    assertThat(text).contains("turn 1").contains("adopting");
    assertThat(BoxedAnswers.extract(text, QuestionKind.GSM8K, 0))
        .isEqualTo(ExtractedAnswer.ok("4"));
  }

  @Test
  void badVariablesAreNamed() {
    Map<String, String> task =
        new java.util.HashMap<>(
            ExtractiveDiscussant.task(QUESTION, QuestionKind.GSM8K, List.of(), 0, "", List.of()));
    task.put(GenerationTask.TURN, "-1");
    assertThatThrownBy(() -> ExtractiveDiscussant.respond(task, new SplittableRandom(1)))
        .hasMessageContaining("turn: got -1");
    task.put(GenerationTask.TURN, "0");
    task.put(GenerationTask.QUESTION_KIND, "math");
    assertThatThrownBy(() -> ExtractiveDiscussant.respond(task, new SplittableRandom(1)))
        .hasMessageContaining("question_kind: got math");
    task.put(GenerationTask.QUESTION_KIND, "gsm8k");
    task.put(GenerationTask.PEER_ANSWERS, "{\"x\":1}");
    assertThatThrownBy(() -> ExtractiveDiscussant.respond(task, new SplittableRandom(1)))
        .hasMessageContaining("peer_answers: got");
    // through the client, the failure is an LlmCallException naming the task
    assertThat(CLIENT.complete(new ChatRequest("extractive", List.of(), null, task)))
        .failsWithin(java.time.Duration.ofSeconds(1))
        .withThrowableOfType(ExecutionException.class)
        .withCauseInstanceOf(LlmCallException.class)
        .withMessageContaining("cannot do task discuss");
  }

  @Test
  void theTaskKindIsRegisteredWithItsVariables() {
    assertThat(GenerationTask.KINDS).contains(GenerationTask.DISCUSS);
    assertThat(GenerationTask.variables(GenerationTask.DISCUSS))
        .containsExactlyInAnyOrder(
            "question", "question_kind", "options", "turn", "own_answer", "peer_answers");
    assertThat(GenerationTask.promptId(GenerationTask.DISCUSS, null)).isEqualTo("maporl-discuss");
  }
}
