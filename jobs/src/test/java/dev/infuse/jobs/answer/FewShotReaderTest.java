package dev.infuse.jobs.answer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.generate.PromptLibrary;
import dev.infuse.udfs.answer.AnswerInput;
import dev.infuse.udfs.answer.AnswerParser;
import dev.infuse.udfs.llm.ChatMessage;
import dev.infuse.udfs.prompt.PromptTemplate;
import java.util.List;
import org.apache.commons.lang3.SerializationUtils;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

class FewShotReaderTest {
  private static final PromptTemplate SHIPPED =
      PromptLibrary.load(
              new Configuration(), SparkTestSession.repoRoot().resolve("conf/prompts").toString())
          .get(AnswerConfig.FEW_SHOT_COT_PROMPT);

  private static AnswerInput question(List<String> passages) {
    return new AnswerInput(
        "q1",
        "quality",
        "mcq",
        "What does the captain keep in his chest?",
        List.of("Gold\nbars", "A map", "Letters", "Nothing"),
        "The Sea Chest",
        null,
        passages);
  }

  @Test
  void asksTheQuestionAfterTheWorkedExamplesWithNumberedContextsAndLetteredChoices() {
    FewShotReader reader = new FewShotReader(SHIPPED);
    List<ChatMessage> messages =
        reader.messages(question(List.of("  The chest holds a map.  ", "He sails at dawn.")));

    assertThat(reader.tag()).isEqualTo("reader-mcq-fewshot-cot@1");
    assertThat(messages).hasSize(1);
    String text = messages.get(0).content();
    assertThat(text)
        .contains("## Example 1")
        .endsWith(
            "## Example 3\n\n"
                + "### Instructions\n"
                + "Answer the following question using the 2 supporting contexts below.\n\n"
                + "*Context 1*\nThe chest holds a map.\n\n"
                + "*Context 2*\nHe sails at dawn.\n\n"
                + "### Question\n"
                + "In the context of \"The Sea Chest\", what does the captain keep in his chest?"
                + " There is only one correct choice.\n\n"
                + "### Choices\n"
                + "A. Gold bars\nB. A map\nC. Letters\nD. Nothing\n\n"
                + "### Thought Process and Answer\n"
                + "Thought process:");
  }

  @Test
  void closedBookAsksWithoutContexts() {
    String text = new FewShotReader(SHIPPED).messages(question(List.of())).get(0).content();
    assertThat(text)
        .contains("### Instructions\nAnswer the following question.\n\n### Question\n")
        .doesNotContain("*Context 3*");
  }

  @Test
  void theParserReadsTheAnswerLineTheExamplesTeach() {
    String continuation =
        " The context says the chest holds a map, so B is correct; A, C and D are not in it.\n"
            + "Answer: B.";
    assertThat(AnswerParser.parse("mcq", continuation, question(List.of()).options()))
        .isEqualTo("B");
  }

  @Test
  void survivesSerializationToTheExecutors() {
    FewShotReader copy = SerializationUtils.roundtrip(new FewShotReader(SHIPPED));
    assertThat(copy.messages(question(List.of("x."))).get(0).content())
        .isEqualTo(new FewShotReader(SHIPPED).messages(question(List.of("x."))).get(0).content());
  }

  @Test
  void aTemplateWithoutThePlaceholdersIsRefusedByName() {
    PromptTemplate broken =
        new PromptTemplate(
            "reader-x",
            2,
            "d",
            List.of(new PromptTemplate.Message("user", "{{question}} {{choices}}")));
    assertThatThrownBy(() -> new FewShotReader(broken))
        .hasMessageContaining("reader-x@2")
        .hasMessageContaining("[instructions, contexts]");
  }
}
