package dev.infuse.udfs.llm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.infuse.udfs.generate.Entities;
import dev.infuse.udfs.generate.EntityListParser;
import dev.infuse.udfs.generate.GenerationTask;
import dev.infuse.udfs.generate.ParseResult;
import dev.infuse.udfs.generate.QaPair;
import dev.infuse.udfs.generate.QaPairsParser;
import dev.infuse.udfs.generate.QualityDocuments;
import dev.infuse.udfs.generate.Sentence;
import dev.infuse.udfs.generate.Sentences;
import dev.infuse.udfs.generate.TextOutputParser;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class ExtractiveClientTest {
  private static final ExtractiveClient CLIENT =
      new ExtractiveClient(
          new LlmSettings(
              LlmBackend.EXTRACTIVE, null, "extractive", null, 4, 30, 60, 1, 100, 1000));
  private static final List<QualityDocuments.Doc> DOCS = QualityDocuments.load();
  private static final ObjectMapper JSON = new ObjectMapper();

  private static GenerationParams params(long seed, int n) {
    return new GenerationParams(0, 0.7, 1.0, n, null, seed, false, null);
  }

  private static ChatResponse complete(Map<String, String> task, GenerationParams params) {
    List<ChatMessage> messages =
        List.of(
            new ChatMessage("system", "You are precise."),
            new ChatMessage("user", "Document:\n" + task.get("document")));
    try {
      return CLIENT.complete(new ChatRequest("extractive", messages, params, task)).get();
    } catch (InterruptedException | ExecutionException e) {
      throw new AssertionError(e);
    }
  }

  private static Map<String, String> task(String kind, QualityDocuments.Doc doc, String... vars) {
    Map<String, String> task = new HashMap<>();
    task.put(GenerationTask.KIND, kind);
    task.put(GenerationTask.DOCUMENT, doc.article());
    task.put(GenerationTask.TITLE, doc.title());
    for (int i = 0; i < vars.length; i += 2) {
      task.put(vars[i], vars[i + 1]);
    }
    return task;
  }

  private static Set<String> documentSentences(String document) {
    Set<String> texts = new HashSet<>();
    for (Sentence sentence : Sentences.split(document)) {
      texts.add(sentence.text());
    }
    return texts;
  }

  private static List<String> bodySentences(String output) {
    String body = output.substring(output.indexOf("\n\n") + 2);
    List<String> texts = new ArrayList<>();
    for (Sentence sentence : Sentences.split(body)) {
      texts.add(sentence.text());
    }
    return texts;
  }

  @Test
  void qaPairsParseHaveVerbatimAnswersAndRespectN() {
    for (QualityDocuments.Doc doc : DOCS) {
      ChatResponse response = complete(task(GenerationTask.QA, doc, "n", "12"), params(7, 1));
      ParseResult<QaPair> parsed = QaPairsParser.parse(response.text());
      assertThat(parsed.problems()).isEmpty();
      assertThat(parsed.values()).hasSize(12);
      for (QaPair pair : parsed.values()) {
        assertThat(doc.article()).as(pair.question()).contains(pair.answer());
        assertThat(pair.question()).doesNotContain(pair.answer() + " ");
      }
      assertThat(response.finishReason()).isEqualTo("stop");
      assertThat(response.attempts()).isEqualTo(1);
      assertThat(response.promptTokens()).isGreaterThan(doc.article().split("\\s+").length - 5);
      assertThat(response.completionTokens())
          .isEqualTo(response.text().trim().split("\\s+").length);
    }
  }

  @Test
  void qaIsDeterministicPerSeedAndDiffersAcrossSeeds() {
    QualityDocuments.Doc doc = DOCS.get(0);
    Map<String, String> task = task(GenerationTask.QA, doc, "n", "8");
    String first = complete(task, params(11, 1)).text();
    assertThat(complete(task, params(11, 1)).text()).isEqualTo(first);
    assertThat(complete(task, params(12, 1)).text()).isNotEqualTo(first);
    ChatResponse three = complete(task, params(11, 3));
    assertThat(three.texts()).hasSize(3);
    assertThat(three.texts().get(0)).isEqualTo(first);
    assertThat(new HashSet<>(three.texts())).hasSize(3);
  }

  @Test
  void aShortDocumentGivesFewerPairsAndWhQuestionsWherePatternsFit() {
    String document =
        "Ada Lovelace was born in 1815. She wrote the first published algorithm for a machine."
            + " The Analytical Engine was a mechanical computer designed by Charles Babbage in London.";
    Map<String, String> task =
        Map.of("task", "qa", "document", document, "title", "Ada", "n", "50");
    List<QaPair> pairs = QaPairsParser.parse(complete(task, params(1, 1)).text()).values();
    assertThat(pairs).isNotEmpty().hasSizeLessThan(50);
    for (QaPair pair : pairs) {
      assertThat(document).contains(pair.answer());
    }
    Set<QaPair> all = new HashSet<>();
    for (long seed = 0; seed < 20; seed++) {
      all.addAll(QaPairsParser.parse(complete(task, params(seed, 1)).text()).values());
    }
    assertThat(all)
        .contains(
            new QaPair("When was Ada Lovelace born?", "1815"),
            new QaPair(
                "What was the Analytical Engine?",
                "a mechanical computer designed by Charles Babbage in London"));
  }

  @Test
  void entitiesArePlausibleNames() {
    QualityDocuments.Doc doc = DOCS.get(0);
    ChatResponse response =
        complete(task(GenerationTask.ENTITIES, doc, "max_entities", "10"), params(1, 1));
    ParseResult<String> parsed = EntityListParser.parse(response.text());
    assertThat(parsed.problems()).isEmpty();
    assertThat(parsed.values())
        .hasSizeBetween(5, 10)
        .contains("Korvin", "Tr'en", "Ruler")
        .doesNotContain("The", "He", "But", "Then", "I");
    for (String entity : parsed.values()) {
      assertThat(occurrences(doc.article(), entity)).as(entity).isGreaterThanOrEqualTo(1);
    }
    assertThat(occurrences(doc.article(), parsed.values().get(0))).isGreaterThanOrEqualTo(3);
    for (QualityDocuments.Doc other : DOCS) {
      List<String> names =
          EntityListParser.parse(
                  complete(task(GenerationTask.ENTITIES, other, "max_entities", "5"), params(1, 1))
                      .text())
              .values();
      assertThat(names).hasSize(5);
      assertThat(names.stream().anyMatch(n -> occurrences(other.article(), n) >= 3))
          .as(other.title())
          .isTrue();
    }
  }

  @Test
  void entigraphSummaryIsDocumentSentencesAndItsEntitiesAreUncapped() {
    QualityDocuments.Doc doc = DOCS.get(0);
    String output = complete(task(GenerationTask.SUMMARY_ENTITIES, doc), params(1, 1)).text();
    ParseResult<String> summary = EntityListParser.summary(output);
    assertThat(summary.problems()).isEmpty();
    String text = summary.values().get(0);
    assertThat(text).startsWith("(extractive summary) ");
    Set<String> source = documentSentences(doc.article());
    List<String> sentences = new ArrayList<>();
    for (Sentence sentence : Sentences.split(text.substring("(extractive summary) ".length()))) {
      sentences.add(sentence.text());
    }
    assertThat(sentences).hasSizeBetween(3, 12);
    assertThat(source).containsAll(sentences);
    // "As many entities as possible": more than the capped recipe's list, the same ranking first.
    List<String> all = EntityListParser.parse(output).values();
    List<String> capped =
        EntityListParser.parse(
                complete(task(GenerationTask.ENTITIES, doc, "max_entities", "12"), params(1, 1))
                    .text())
            .values();
    assertThat(all.size()).isGreaterThan(capped.size());
    assertThat(all.subList(0, capped.size())).isEqualTo(capped);
  }

  @Test
  void entityDocumentsAreDocumentSentencesAboutTheEntities() {
    QualityDocuments.Doc doc = DOCS.get(0);
    Set<String> source = documentSentences(doc.article());
    for (String entities :
        List.of("[\"Didyak\"]", "[\"Korvin\", \"Ruler\"]", "[\"Earth\", \"Tr'en\", \"Korvin\"]")) {
      String output =
          complete(task(GenerationTask.ENTITY_DOC, doc, "entities", entities), params(1, 1)).text();
      List<String> names = EntityListParser.parse(entities).values();
      assertThat(output).startsWith("Entities: " + String.join("; ", names) + "\n\n");
      List<String> sentences = bodySentences(output);
      assertThat(sentences).isNotEmpty();
      for (String sentence : sentences) {
        assertThat(source).as(sentence).contains(sentence);
        assertThat(names.stream().anyMatch(name -> Entities.mentions(sentence, name)))
            .as(sentence)
            .isTrue();
      }
      assertThat(TextOutputParser.parse(output).values()).containsExactly(output.strip());
    }
    String pair =
        complete(
                task(GenerationTask.ENTITY_DOC, doc, "entities", "[\"Korvin\", \"Ruler\"]"),
                params(1, 1))
            .text();
    String firstSentence = bodySentences(pair).get(0);
    assertThat(
            Entities.mentions(firstSentence, "Korvin") && Entities.mentions(firstSentence, "Ruler"))
        .isTrue();
  }

  @Test
  void focalRewriteHoldsTheSentenceThatAnswersAClozeQuestion() {
    for (QualityDocuments.Doc doc : DOCS) {
      List<QaPair> pairs =
          QaPairsParser.parse(complete(task(GenerationTask.QA, doc, "n", "6"), params(3, 1)).text())
              .values();
      QaPair cloze =
          pairs.stream()
              .filter(p -> p.question().startsWith("Fill in the blank: "))
              .findFirst()
              .orElseThrow();
      String sentence =
          cloze
              .question()
              .substring("Fill in the blank: ".length())
              .replace("____", cloze.answer());
      String questions;
      try {
        questions = JSON.writeValueAsString(List.of(cloze.question(), doc.questions().get(0)));
      } catch (Exception e) {
        throw new AssertionError(e);
      }
      String output =
          complete(task(GenerationTask.FOCAL, doc, "questions", questions), params(1, 1)).text();
      assertThat(output)
          .startsWith("(extractive focal rewrite for 2 question(s))\n\n")
          .contains(sentence);
      Set<String> source = documentSentences(doc.article());
      for (String text : bodySentences(output)) {
        assertThat(source).as(text).contains(text);
      }
      assertThat(output.length()).isLessThan(doc.article().length() / 2);
    }
  }

  @Test
  void rephraseStylesDifferAndAreMadeOfDocumentSentences() {
    QualityDocuments.Doc doc = DOCS.get(0);
    Set<String> source = documentSentences(doc.article());
    String normalizedDoc = Sentences.normalize(doc.article()).toLowerCase();
    Map<String, String> outputs = new HashMap<>();
    for (String style : GenerationTask.STYLES) {
      String output =
          complete(task(GenerationTask.REPHRASE, doc, "style", style), params(1, 1)).text();
      outputs.put(style, output);
      assertThat(output).contains("(extractive rephrase: " + style + ")");
      assertThat(TextOutputParser.parse(output).ok()).isTrue();
    }
    assertThat(new HashSet<>(outputs.values())).hasSize(GenerationTask.STYLES.size());

    for (String text : bodySentences(outputs.get("terse"))) {
      assertThat(source).as(text).contains(text);
    }
    int terse = bodySentences(outputs.get("terse")).size();
    assertThat(terse).isBetween(source.size() / 4, source.size() / 2);

    String encyclopedic = outputs.get("encyclopedic");
    assertThat(encyclopedic)
        .startsWith(Sentences.normalize(doc.title()) + "\n(extractive rephrase: encyclopedic)\n\n");
    for (String paragraph :
        encyclopedic.substring(encyclopedic.indexOf("\n\n") + 2).split("\n\n")) {
      String heading = paragraph.substring(0, paragraph.indexOf('\n'));
      for (Sentence sentence : Sentences.split(paragraph.substring(paragraph.indexOf('\n') + 1))) {
        assertThat(source).as(sentence.text()).contains(sentence.text());
        if (!heading.equals("Other details")) {
          assertThat(Entities.mentions(sentence.text(), heading))
              .as(heading + ": " + sentence.text())
              .isTrue();
        }
      }
    }

    Pattern turn = Pattern.compile("Q: ([^\\n]+\\?)\\nA: ([^\\n]+)");
    Matcher matcher = turn.matcher(outputs.get("qa_dialogue"));
    int turns = 0;
    while (matcher.find()) {
      turns++;
      for (Sentence sentence : Sentences.split(matcher.group(2))) {
        assertThat(source).as(sentence.text()).contains(sentence.text());
      }
    }
    assertThat(turns).isGreaterThan(100);

    for (Sentence sentence :
        Sentences.split(outputs.get("simple").substring(outputs.get("simple").indexOf("\n\n")))) {
      String piece =
          sentence.text().replaceFirst("^This ", "").replaceFirst("[.]$", "").toLowerCase();
      assertThat(normalizedDoc.contains(piece)).as(sentence.text()).isTrue();
    }
  }

  @Test
  void simplifySplitsLongSentencesAtSemicolonsAndClosingWhichClauses() {
    String text =
        "The cell had been put together more efficiently than any he had seen before that day; the Tr'en were"
            + " an efficient people, which everybody in the Comity of Planets knew well";
    assertThat(ExtractiveRephrase.simplify(text))
        .containsExactly(
            "The cell had been put together more efficiently than any he had seen before that day.",
            "The Tr'en were an efficient people.",
            "This everybody in the Comity of Planets knew well.");
    assertThat(ExtractiveRephrase.simplify("Short, which stays."))
        .containsExactly("Short, which stays.");
  }

  @Test
  void maxTokensCutsTheOutputLikeAModelWould() {
    QualityDocuments.Doc doc = DOCS.get(0);
    GenerationParams params = new GenerationParams(30, 0, 1, 1, null, 5L, false, null);
    ChatResponse response = complete(task(GenerationTask.QA, doc, "n", "10"), params);
    assertThat(response.finishReason()).isEqualTo("length");
    assertThat(response.completionTokens()).isEqualTo(30);
    ParseResult<QaPair> parsed = QaPairsParser.parse(response.text());
    assertThat(parsed.values().size()).isLessThan(10);
    assertThat(parsed.problems()).isNotEmpty();
  }

  @Test
  void badTaskInputsFailTheFutureNamingTheVariable() {
    QualityDocuments.Doc doc = DOCS.get(0);
    assertFails(task(GenerationTask.QA, doc, "n", "many"), "n: got many");
    assertFails(
        task(GenerationTask.ENTITY_DOC, doc, "entities", "[\"a\",\"b\",\"c\",\"d\"]"),
        "entities: got");
    assertFails(
        task(GenerationTask.ENTITY_DOC, doc, "entities", "[\"Zyxwvut\"]"),
        "no sentence of the document mentions");
    assertFails(task(GenerationTask.REPHRASE, doc, "style", "poetic"), "style: got poetic");
    assertFails(task("summarize", doc), "task: got summarize");
    assertFails(Map.of("task", "focal", "questions", "[\"q\"]"), "document: missing");
    assertThat(CLIENT.backend()).isEqualTo("extractive");
  }

  @Test
  void modelOnlyBehaviourKindsAreRefusedNamingTheSettingThatNeedsNoModel() {
    assertFails(
        Map.of("task", GenerationTask.BEHAVIOR_CONVERSATION, "context", "note: Pulse 80."),
        "behavior_conversation has no extractive implementation; set"
            + " behavior.conversation=template");
    assertFails(
        Map.of(
            "task",
            GenerationTask.BEHAVIOR_SFT_REWRITE,
            "context",
            "note: Pulse 80.",
            "query",
            "",
            "target",
            "Nothing in the record needs flagging."),
        "behavior_sft_rewrite has no extractive implementation; set behavior.sft.rewrite=template");
    assertFails(
        Map.of("task", GenerationTask.BEHAVIOR_JUDGE, "context", "c", "response", "r"),
        "use the rule classifier");
  }

  private static void assertFails(Map<String, String> task, String message) {
    assertThatThrownBy(
            () -> CLIENT.complete(new ChatRequest("m", List.of(), params(1, 1), task)).get())
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(LlmCallException.class)
        .hasMessageContaining(message);
  }

  private static int occurrences(String text, String needle) {
    Matcher matcher = Entities.mentionPattern(needle).matcher(Sentences.normalize(text));
    int count = 0;
    while (matcher.find()) {
      count++;
    }
    return count;
  }
}
