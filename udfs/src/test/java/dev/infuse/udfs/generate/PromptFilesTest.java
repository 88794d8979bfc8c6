package dev.infuse.udfs.generate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.udfs.RepoPaths;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The shipped prompt files, checked by hand (udfs has no YAML parser; the jobs module's validate
 * command parses them fully): each declares an id and a version, is the prompt its kind expects,
 * and uses only the variables that kind's task map carries, including the ones that matter.
 */
class PromptFilesTest {
  private static final Pattern ID = Pattern.compile("(?m)^id:\\s*\"?([^\"\\s#]+)\"?\\s*(?:#.*)?$");
  private static final Pattern VERSION = Pattern.compile("(?m)^version:\\s*(\\d+)\\s*(?:#.*)?$");
  private static final Pattern PLACEHOLDER =
      Pattern.compile("\\{\\{\\s*([A-Za-z_][A-Za-z0-9_]*)\\s*}}");
  private static final Map<String, String> KIND_BY_ID =
      Map.ofEntries(
          Map.entry("gen-qa", GenerationTask.QA),
          Map.entry("rephrase/simple", GenerationTask.REPHRASE),
          Map.entry("rephrase/encyclopedic", GenerationTask.REPHRASE),
          Map.entry("rephrase/terse", GenerationTask.REPHRASE),
          Map.entry("rephrase/qa-dialogue", GenerationTask.REPHRASE),
          Map.entry("entities", GenerationTask.ENTITIES),
          Map.entry("entigraph/entities", GenerationTask.SUMMARY_ENTITIES),
          Map.entry("entity-doc", GenerationTask.ENTITY_DOC),
          Map.entry("entigraph/entity", GenerationTask.ENTITY_DOC),
          Map.entry("entigraph/pair", GenerationTask.ENTITY_DOC),
          Map.entry("entigraph/triple", GenerationTask.ENTITY_DOC),
          Map.entry("focal", GenerationTask.FOCAL),
          Map.entry("behavior-assistant", GenerationTask.BEHAVE),
          Map.entry("behavior-judge", GenerationTask.BEHAVIOR_JUDGE),
          Map.entry("behavior-conversation", GenerationTask.BEHAVIOR_CONVERSATION),
          Map.entry("behavior-sft-rewrite", GenerationTask.BEHAVIOR_SFT_REWRITE));
  private static final Map<String, Set<String>> REQUIRED =
      Map.of(
          GenerationTask.QA, Set.of(GenerationTask.DOCUMENT, GenerationTask.N),
          GenerationTask.REPHRASE, Set.of(GenerationTask.DOCUMENT),
          GenerationTask.ENTITIES, Set.of(GenerationTask.DOCUMENT, GenerationTask.MAX_ENTITIES),
          GenerationTask.SUMMARY_ENTITIES, Set.of(GenerationTask.DOCUMENT),
          GenerationTask.ENTITY_DOC, Set.of(GenerationTask.DOCUMENT, GenerationTask.ENTITIES_VAR),
          GenerationTask.FOCAL, Set.of(GenerationTask.DOCUMENT, GenerationTask.QUESTIONS),
          GenerationTask.BEHAVE, Set.of(GenerationTask.CONTEXT, GenerationTask.QUERY),
          GenerationTask.BEHAVIOR_JUDGE, Set.of(GenerationTask.CONTEXT, GenerationTask.RESPONSE),
          GenerationTask.BEHAVIOR_CONVERSATION, Set.of(GenerationTask.CONTEXT),
          GenerationTask.BEHAVIOR_SFT_REWRITE,
              Set.of(GenerationTask.CONTEXT, GenerationTask.QUERY, GenerationTask.TARGET));

  /**
   * Prompts that grade rather than generate (score's judge), with exactly the variables they are
   * given.
   */
  private static final Map<String, Set<String>> GRADING =
      Map.of("financebench-judge", Set.of("question", "gold", "answer"));

  /**
   * Prompts that are one user message with no system turn, with exactly the variables they are
   * given: retrieval queries (the text a question is searched with), the few-shot reader for base
   * models, which is a completion prompt, and MAPoRL's discussion turns (the conversation is built
   * by {@code dev.infuse.udfs.maporl.DiscussionPrompts}) and the llm_judge verifier's rubric.
   */
  private static final Map<String, Set<String>> SINGLE_MESSAGE =
      Map.of(
          "query/question",
          Set.of("question"),
          "query/entigraph",
          Set.of("title", "author", "year", "question_lc", "question", "options"),
          "reader-mcq-fewshot-cot",
          Set.of("instructions", "contexts", "question", "choices"),
          "maporl-first",
          Set.of("question", "answer_instruction"),
          "maporl-discuss",
          Set.of("others", "own_feedback", "question"),
          "maporl-judge",
          Set.of("question", "response"));

  @Test
  void everyPromptFileDeclaresAKnownIdAVersionAndOnlyItsKindsVariables() throws IOException {
    Path dir = RepoPaths.repoRoot().resolve("conf/prompts");
    Map<String, Path> seen = new TreeMap<>();
    List<Path> files;
    try (Stream<Path> listing = Files.list(dir)) {
      files = listing.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
    }
    for (Path file : files) {
      String yaml = Files.readString(file);
      Matcher id = ID.matcher(yaml);
      assertThat(id.find()).as(file + " has an id: line").isTrue();
      Matcher version = VERSION.matcher(yaml);
      assertThat(version.find()).as(file + " has a version: line").isTrue();
      assertThat(Integer.parseInt(version.group(1)))
          .as(file + " version")
          .isGreaterThanOrEqualTo(1);
      assertThat(seen.put(id.group(1), file)).as("id " + id.group(1) + " defined twice").isNull();
      Set<String> used = new HashSet<>();
      Matcher placeholder = PLACEHOLDER.matcher(yaml);
      while (placeholder.find()) {
        used.add(placeholder.group(1));
      }
      if (SINGLE_MESSAGE.containsKey(id.group(1))) {
        assertThat(yaml)
            .as(file + " has one user message")
            .contains("messages:")
            .contains("role: user")
            .doesNotContain("role: system");
        assertThat(used).as(file + " placeholders").isEqualTo(SINGLE_MESSAGE.get(id.group(1)));
        continue;
      }
      assertThat(yaml)
          .as(file + " has messages")
          .contains("messages:")
          .contains("role: system")
          .contains("role: user");
      if (GRADING.containsKey(id.group(1))) {
        assertThat(used).as(file + " placeholders").isEqualTo(GRADING.get(id.group(1)));
        continue;
      }
      String kind = KIND_BY_ID.get(id.group(1));
      assertThat(kind)
          .as(file + ": id " + id.group(1) + " is a known generation or grading prompt")
          .isNotNull();
      assertThat(GenerationTask.variables(kind)).as(file + " placeholders").containsAll(used);
      assertThat(used)
          .as(file + " uses the variables its task needs")
          .containsAll(REQUIRED.get(kind));
    }
    Set<String> expected = new HashSet<>(KIND_BY_ID.keySet());
    expected.addAll(GRADING.keySet());
    expected.addAll(SINGLE_MESSAGE.keySet());
    assertThat(seen.keySet()).containsExactlyInAnyOrderElementsOf(expected);
    for (String style : GenerationTask.STYLES) {
      assertThat(seen).containsKey(GenerationTask.promptId(GenerationTask.REPHRASE, style));
    }
    assertThat(seen).containsKeys(GenerationTask.ENTIGRAPH_DOC_PROMPTS.toArray(String[]::new));
    assertThat(seen).containsKey(GenerationTask.promptId(GenerationTask.SUMMARY_ENTITIES, null));
  }

  @Test
  void jsonPromptsAskForJsonOnly() throws IOException {
    Path dir = RepoPaths.repoRoot().resolve("conf/prompts");
    for (String name : List.of("gen-qa.yaml", "entities.yaml")) {
      String yaml = Files.readString(dir.resolve(name));
      assertThat(yaml).as(name).containsIgnoringCase("JSON array").containsIgnoringCase("only");
    }
    String entigraph = Files.readString(dir.resolve("entigraph-entities.yaml"));
    assertThat(entigraph)
        .containsIgnoringCase("JSON object only")
        .contains("\"summary\"")
        .contains("\"entities\"")
        .containsIgnoringCase("as many as you can");
  }
}
