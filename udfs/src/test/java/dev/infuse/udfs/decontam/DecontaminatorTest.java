package dev.infuse.udfs.decontam;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class DecontaminatorTest {
  private static final String QUESTION =
      "Why does the narrator decide to leave the colony on Mars after the second harvest fails completely?";
  private static final BenchmarkQuestion MARS =
      new BenchmarkQuestion(
          "quality:mars-1",
          QUESTION,
          List.of(
              "Because he misses his family back on Earth",
              "Because the oxygen recyclers were sabotaged by the mayor",
              "Because the doctor told him he would not survive another winter",
              "He does not leave"),
          "C",
          2,
          "mcq");
  private static final BenchmarkQuestion GSM =
      new BenchmarkQuestion(
          "gsm8k:7",
          "Janet has three apples and buys five more at the market on Tuesday morning before school, how many does she have now?",
          null,
          "8",
          null,
          "numeric");

  private static final String PROSE =
      "The committee met on a rainy Thursday to discuss the budget for the new library wing.";

  private static Decontaminator decontaminator(DecontaminationSettings settings) {
    return new Decontaminator(BenchmarkNgramIndex.build(List.of(MARS, GSM), settings), settings);
  }

  @Test
  void plantedQuestionIsFoundWithItsIdNgramAndExactOffsets() {
    String document =
        PROSE + " Reader question: " + QUESTION.toUpperCase() + " Then the meeting ended.";
    List<ContaminationHit> hits = decontaminator(DecontaminationSettings.defaults()).scan(document);

    int questionStart = document.indexOf("WHY DOES");
    // 17 words in the question: 17 - 13 + 1 windows of 13 words.
    assertThat(hits)
        .hasSize(5)
        .allSatisfy(hit -> assertThat(hit.questionId()).isEqualTo("quality:mars-1"));
    assertThat(hits.get(0).ngram())
        .isEqualTo("why does the narrator decide to leave the colony on mars after the");
    assertThat(hits.get(0).charStart()).isEqualTo(questionStart);
    assertThat(document.substring(hits.get(0).charStart(), hits.get(0).charEnd()))
        .isEqualTo("WHY DOES THE NARRATOR DECIDE TO LEAVE THE COLONY ON MARS AFTER THE");
    assertThat(document.substring(hits.get(4).charStart(), hits.get(4).charEnd()))
        .endsWith("SECOND HARVEST FAILS COMPLETELY");
  }

  @Test
  void removeSpanCutsTheQuestionAndItsMarginMergingOverlappingHits() {
    String document = PROSE + " " + QUESTION + " " + PROSE;
    DecontaminationSettings settings = DecontaminationSettings.defaults().withMarginChars(0);
    DecontaminatedText result = decontaminator(settings).clean(document);

    assertThat(result.outcome()).isEqualTo(DecontaminatedText.Outcome.SHORTENED);
    assertThat(result.hits()).hasSize(5);
    // Five overlapping 13-word windows merge into one cut: exactly the question's words.
    assertThat(result.removed())
        .containsExactly(new CharSpan(document.indexOf("Why"), document.indexOf("? The")));
    assertThat(result.text()).isEqualTo(PROSE + " ? " + PROSE);
  }

  @Test
  void marginWidensToWholeWordsAndClampsToTheText() {
    String document = PROSE + " " + QUESTION + " " + PROSE;
    DecontaminatedText result =
        decontaminator(DecontaminationSettings.defaults().withMarginChars(10)).clean(document);

    // 10 characters before "Why" land inside "library" (of "library wing. ") → widened back to its
    // start.
    String left = document.substring(0, result.removed().get(0).start());
    assertThat(left).isEqualTo(PROSE.substring(0, PROSE.indexOf("library")));
    assertThat(result.text())
        .doesNotContain("narrator")
        .startsWith("The committee")
        .endsWith("library wing.");
    assertThat(result.text()).doesNotContainPattern("[a-z][A-Z]");

    DecontaminatedText wide =
        decontaminator(DecontaminationSettings.defaults().withMarginChars(500))
            .clean(PROSE + " " + QUESTION);
    assertThat(wide.outcome()).isEqualTo(DecontaminatedText.Outcome.EMPTIED);
    assertThat(wide.text()).isNull();
  }

  @Test
  void separateHitsStaySeparateCuts() {
    String option = "Because the doctor told him he would not survive another winter";
    String document = QUESTION + " " + PROSE + " " + PROSE + " " + option + " and so on.";
    DecontaminatedText result =
        decontaminator(DecontaminationSettings.defaults().withMarginChars(0)).clean(document);

    assertThat(result.removed()).hasSize(2);
    assertThat(result.text()).isEqualTo("? " + PROSE + " " + PROSE + "  and so on.");
    // The 11-word gold option is a short text (>= 8 words): its one whole-text n-gram matched.
    assertThat(result.hits())
        .filteredOn(hit -> hit.ngram().startsWith("because the doctor"))
        .singleElement()
        .satisfies(
            hit ->
                assertThat(document.substring(hit.charStart(), hit.charEnd())).isEqualTo(option));
  }

  @Test
  void unrelatedTextAndShortCommonOptionsAreUntouched() {
    String document = PROSE + " He does not leave. The narrator decided to stay on Earth.";
    DecontaminatedText result = decontaminator(DecontaminationSettings.defaults()).clean(document);

    assertThat(result.outcome()).isEqualTo(DecontaminatedText.Outcome.UNCHANGED);
    assertThat(result.text()).isSameAs(document);
    assertThat(result.hits()).isEmpty();
    assertThat(decontaminator(DecontaminationSettings.defaults()).clean(null).outcome())
        .isEqualTo(DecontaminatedText.Outcome.UNCHANGED);
  }

  @Test
  void nIsConfigurable() {
    // Eight words of the question: below 13, enough for 8-grams.
    String document = PROSE + " the narrator decide to leave the colony on Mars, said nobody.";
    assertThat(decontaminator(DecontaminationSettings.defaults()).scan(document)).isEmpty();

    DecontaminationSettings eight = DecontaminationSettings.defaults().withNgramWords(8);
    List<ContaminationHit> hits = decontaminator(eight).scan(document);
    assertThat(hits)
        .extracting(ContaminationHit::ngram)
        .contains("the narrator decide to leave the colony on");
    assertThat(hits).extracting(ContaminationHit::questionId).containsOnly("quality:mars-1");
  }

  @Test
  void dropRowDropsTheWholeRowAndStillLogsHits() {
    String document = PROSE + " " + GSM.question();
    DecontaminatedText result =
        decontaminator(DecontaminationSettings.defaults().withMode(DecontaminationMode.DROP_ROW))
            .clean(document);

    assertThat(result.outcome()).isEqualTo(DecontaminatedText.Outcome.DROPPED);
    assertThat(result.outcome().action()).isEqualTo("drop_row");
    assertThat(result.text()).isNull();
    assertThat(result.hits())
        .isNotEmpty()
        .extracting(ContaminationHit::questionId)
        .containsOnly("gsm8k:7");
  }

  @Test
  void normalisationIgnoresCaseWidthAndPunctuation() {
    List<NormalizedWords.Word> words = NormalizedWords.of("Ｆｉｒｅ, FIRE! fire's");
    assertThat(words)
        .extracting(NormalizedWords.Word::text)
        .containsExactly("fire", "fire", "fire", "s");
    assertThat(words.get(0)).isEqualTo(new NormalizedWords.Word("fire", 0, 4));

    String punctuated = QUESTION.replace(" ", " -- ").replace("narrator", "Narrator,");
    assertThat(decontaminator(DecontaminationSettings.defaults()).scan(punctuated)).hasSize(5);
  }

  @Test
  void sameNgramInTwoQuestionsNamesBoth() {
    BenchmarkQuestion copy =
        new BenchmarkQuestion("quality:mars-2", QUESTION, List.of("x", "y"), "A", 0, "mcq");
    DecontaminationSettings settings = DecontaminationSettings.defaults();
    Decontaminator both =
        new Decontaminator(BenchmarkNgramIndex.build(List.of(MARS, copy), settings), settings);

    assertThat(both.scan(QUESTION))
        .hasSize(10)
        .extracting(ContaminationHit::questionId)
        .containsOnly("quality:mars-1", "quality:mars-2");
  }

  @Test
  void protectedTextsAreQuestionOptionsAndGoldText() {
    assertThat(MARS.protectedTexts()).hasSize(5).startsWith(QUESTION).doesNotContain("C");
    assertThat(GSM.protectedTexts()).containsExactly(GSM.question(), "8");
  }

  @Test
  void badSettingsNameTheOption() {
    assertThatThrownBy(() -> DecontaminationMode.fromName("cut"))
        .hasMessage("got cut, expected remove_span or drop_row");
    assertThatThrownBy(() -> new DecontaminationSettings(0, 1, DecontaminationMode.DROP_ROW, 0))
        .hasMessageContaining("ngram_words");
    assertThatThrownBy(() -> new DecontaminationSettings(13, 8, DecontaminationMode.DROP_ROW, -1))
        .hasMessageContaining("margin_chars");
  }

  @Test
  void offsetsStayExactAfterSurrogatePairsAndCompatibilityCharacters() {
    // "𝐀𝐁" is two letters in four UTF-16 units; "Ｍａｒｓ" normalises to "mars".
    String document = "𝐀𝐁 😀 " + QUESTION.replace("Mars", "Ｍａｒｓ");
    List<ContaminationHit> hits = decontaminator(DecontaminationSettings.defaults()).scan(document);

    assertThat(hits).hasSize(5);
    assertThat(hits.get(0).charStart()).isEqualTo(document.indexOf("Why"));
    assertThat(document.substring(hits.get(0).charStart(), hits.get(0).charEnd()))
        .endsWith("on Ｍａｒｓ after the");
    assertThat(hits.get(4).charEnd()).isEqualTo(document.length() - 1);
  }

  @Test
  void indexHoldsEveryNgramOnceWithItsQuestions() {
    DecontaminationSettings settings = DecontaminationSettings.defaults();
    BenchmarkQuestion fifteenWords =
        new BenchmarkQuestion(
            "q:1",
            "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen",
            null,
            null,
            null,
            "free");
    BenchmarkNgramIndex index =
        BenchmarkNgramIndex.build(List.of(fifteenWords, fifteenWords), settings);

    assertThat(index.size()).isEqualTo(3);
    assertThat(index.questionCount()).isEqualTo(1);
    assertThat(index.windowLengths()).containsExactly(13);
    assertThat(index.estimatedBytes()).isLessThan(200);
  }
}
