package dev.infuse.udfs.maporl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.infuse.udfs.RepoPaths;
import dev.infuse.udfs.llm.ChatMessage;
import dev.infuse.udfs.prompt.PromptTemplate;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class DiscussionPromptsTest {
  /**
   * The shipped file, read by hand (udfs has no YAML parser): its id, its version and its one
   * {@code content: |-} block.
   */
  static PromptTemplate load(String file) {
    try {
      List<String> lines = Files.readAllLines(RepoPaths.repoRoot().resolve("conf/prompts/" + file));
      String yaml = String.join("\n", lines);
      Matcher id = Pattern.compile("(?m)^id:\\s*(\\S+)").matcher(yaml);
      Matcher version = Pattern.compile("(?m)^version:\\s*(\\d+)").matcher(yaml);
      assertThat(id.find() && version.find()).isTrue();
      List<String> content = new ArrayList<>();
      boolean in = false;
      for (String line : lines) {
        if (in) {
          content.add(line.isBlank() ? "" : line.substring(6));
        } else if (line.strip().equals("content: |-")) {
          in = true;
        }
      }
      return new PromptTemplate(
          id.group(1),
          Integer.parseInt(version.group(1)),
          "",
          List.of(new PromptTemplate.Message("user", String.join("\n", content))));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static DiscussionPrompts prompts(boolean feedback) {
    return new DiscussionPrompts(load("maporl-first.yaml"), load("maporl-discuss.yaml"), feedback);
  }

  @Test
  void theFilesAreUsableTemplatesWithTheirVariables() {
    assertThat(load("maporl-first.yaml").problems()).isEmpty();
    assertThat(load("maporl-first.yaml").placeholders())
        .containsExactly("question", "answer_instruction");
    assertThat(load("maporl-discuss.yaml").placeholders())
        .containsExactly("others", "own_feedback", "question");
    assertThat(prompts(false).templateVersions())
        .isEqualTo("maporl-first@1,maporl-discuss@1,maporl-wording@1");
  }

  @Test
  void firstTurnAsksForABoxedAnswerOfTheKind() {
    String gsm = prompts(false).firstMessage("What is 2 + 2?", QuestionKind.GSM8K, List.of());
    assertThat(gsm)
        .startsWith("Question: What is 2 + 2?\n\nProvide a short but precise reasoning")
        .contains("Answer: \\boxed{XX}");
    String anli =
        prompts(false).firstMessage("Premise: A. Hypothesis: B.", QuestionKind.ANLI, List.of());
    assertThat(anli)
        .contains("'entailment', 'neutral', or 'contradiction'")
        .contains("\\boxed{XX}");
    String mcq =
        prompts(false)
            .firstMessage("Which is red?", QuestionKind.MCQ, List.of("lime", "apple", "sky"));
    assertThat(mcq)
        .startsWith("Question: Which is red?\n\nA. lime\nB. apple\nC. sky\n\n")
        .contains("letter of the correct option (A, B or C)")
        .contains("Answer: \\boxed{X}");
  }

  @Test
  void discussionWithoutFeedbackQuotesEachPeerAndRepeatsTheQuestion() {
    String message =
        prompts(false)
            .discussMessage(
                "What is 2 + 2?",
                QuestionKind.GSM8K,
                List.of(),
                List.of(
                    new PeerAnswer("b", "It is 4. \\boxed{4}", 0.9),
                    new PeerAnswer("c", "5", null)),
                null);
    assertThat(message)
        .isEqualTo(
            "These are the solutions to the problem from other agents:"
                + "\n\nAgent 1 solution: ```It is 4. \\boxed{4}```"
                + "\n\nAgent 2 solution: ```5```"
                + "\n\nFocus on providing a well-reasoned response that not only considers your own"
                + " previous solution but also takes into account answers from other agents. If you"
                + " believe your previous answer was incorrect, feel free to revise it. However,"
                + " avoid repeating the same answer you or other agents have already provided. Also,"
                + " internally think about the reward of your and other agents' answer. Ensure that"
                + " your explanation is well justifying your final answer. Please maintain your"
                + " answer with very simple reasoning."
                + "\n\nOnce again, the question is: What is 2 + 2?");
  }

  @Test
  void discussionWithFeedbackShowsScoresByBand() {
    String message =
        prompts(true)
            .discussMessage(
                "Q?",
                QuestionKind.GSM8K,
                List.of(),
                List.of(new PeerAnswer("b", "four", 0.85)),
                0.42);
    assertThat(message)
        .startsWith(
            "These are the solutions to the problem from other agents:"
                + "\n\nAgent 1 solution: ```four```"
                + "\n\nReward associated with agent 1's solution calculated by verifier:  0.850 out"
                + " of 1.0, which means Agent 1's answer is likely right with high probability."
                + "\n\nReward from a verifier of your answer: 0.420 out of 1.0, which means Your"
                + " answer might be wrong, or your reasoning needs to have a stronger argument."
                + "\n\nHere, each reward represents the probability")
        .endsWith("Once again, the question is: Q?");
    assertThatThrownBy(
            () ->
                prompts(true)
                    .discussMessage(
                        "Q?",
                        QuestionKind.GSM8K,
                        List.of(),
                        List.of(new PeerAnswer("b", "x", 0.1)),
                        null))
        .hasMessageContaining("ownLatestScore");
  }

  @Test
  void scoreBands() {
    assertThat(PromptWording.band(0.29)).isEqualTo("Your answer is highly likely wrong.");
    assertThat(PromptWording.band(0.3)).startsWith("Your answer might be wrong");
    assertThat(PromptWording.band(0.6))
        .isEqualTo(
            "Your answer seems right, but check your reasoning again, there might be some room for"
                + " improvement.");
    assertThat(PromptWording.band(0.8))
        .isEqualTo("Your answer is likely right with high probability.");
  }

  @Test
  void conversationAlternatesAndEndsWithTheNewMessage() {
    List<ChatMessage> messages =
        prompts(false)
            .conversation(List.of(new AgentTurn("q0", "r0"), new AgentTurn("q1", "r1")), "q2");
    assertThat(messages)
        .containsExactly(
            new ChatMessage("user", "q0"),
            new ChatMessage("assistant", "r0"),
            new ChatMessage("user", "q1"),
            new ChatMessage("assistant", "r1"),
            new ChatMessage("user", "q2"));
  }
}
