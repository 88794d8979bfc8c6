package dev.infuse.udfs.generate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.infuse.udfs.llm.ChatRequest;
import dev.infuse.udfs.llm.GenerationParams;
import dev.infuse.udfs.prompt.PromptTemplate;
import dev.infuse.udfs.prompt.PromptTemplate.Message;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PromptTemplatesTest {
  private static PromptTemplate qa(int version) {
    return new PromptTemplate(
        "gen-qa",
        version,
        "QA pairs",
        List.of(
            new Message("system", "You write questions."),
            new Message(
                "user",
                "Title: {{title}}\n\n{{ document }}\n\nWrite {{n}} pairs about {{title}}.")));
  }

  @Test
  void renderReplacesEveryPlaceholderAndIgnoresExtras() {
    List<Message> messages =
        qa(1)
            .render(
                Map.of(
                    "title",
                    "T",
                    "document",
                    "Doc with {{braces}} and $1 \\ back",
                    "n",
                    "3",
                    "unused",
                    "x"));
    assertThat(messages)
        .containsExactly(
            new Message("system", "You write questions."),
            new Message(
                "user",
                "Title: T\n\nDoc with {{braces}} and $1 \\ back\n\nWrite 3 pairs about T."));
  }

  @Test
  void renderWithAMissingVariableNamesTemplateAndVariable() {
    assertThatThrownBy(() -> qa(2).render(Map.of("title", "T", "n", "3")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("gen-qa@v2")
        .hasMessageContaining("document")
        .hasMessageNotContaining("title");
  }

  @Test
  void registryServesLatestOrExactVersion() {
    PromptTemplates templates = PromptTemplates.of(List.of(qa(1), qa(3), qa(2)));
    assertThat(templates.get("gen-qa").version()).isEqualTo(3);
    assertThat(templates.get("gen-qa", 2).version()).isEqualTo(2);
    assertThat(templates.ids()).containsExactly("gen-qa");
    assertThatThrownBy(() -> templates.get("gen-q")).hasMessageContaining("did you mean 'gen-qa'");
    assertThatThrownBy(() -> templates.get("gen-qa", 9)).hasMessageContaining("gen-qa@v9");
    assertThatThrownBy(() -> PromptTemplates.of(List.of(qa(1), qa(1))))
        .hasMessageContaining("registered twice");
    PromptTemplate broken = new PromptTemplate("x", 0, "", List.of(new Message("robot", "hi")));
    assertThatThrownBy(() -> PromptTemplates.of(List.of(broken)))
        .hasMessageContaining("x@v0")
        .hasMessageContaining("role");
  }

  @Test
  void aRequestCarriesTheRenderedPromptAndOnlyTheKindsVariables() {
    GenerationParams params = new GenerationParams(512, 0.7, 1, 1, null, 42L, true, null);
    ChatRequest request =
        GenerationTask.request(
            GenerationTask.QA,
            qa(1),
            Map.of("title", "T", "document", "D.", "n", "2", "style", "terse"),
            "m",
            params);
    assertThat(request.messages()).hasSize(2);
    assertThat(request.messages().get(1).content()).contains("D.").contains("Write 2 pairs");
    assertThat(request.task())
        .isEqualTo(Map.of("task", "qa", "title", "T", "document", "D.", "n", "2"));
  }

  @Test
  void promptIdsPerKind() {
    assertThat(GenerationTask.promptId(GenerationTask.REPHRASE, GenerationTask.STYLE_QA_DIALOGUE))
        .isEqualTo("rephrase/qa-dialogue");
    assertThat(GenerationTask.promptId(GenerationTask.ENTITY_DOC, null)).isEqualTo("entity-doc");
    assertThatThrownBy(() -> GenerationTask.promptId(GenerationTask.REPHRASE, "poetic"))
        .hasMessageContaining("style");
    assertThatThrownBy(() -> GenerationTask.variables("summary"))
        .hasMessageContaining("task: got summary");
  }
}
