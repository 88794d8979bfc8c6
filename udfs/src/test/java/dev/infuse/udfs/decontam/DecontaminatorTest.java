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
    DecontaminationSettings settings =
        DecontaminationSettings.defaults().withMarginChars(0).withMinPieceChars(1);
    DecontaminatedText result = decontaminator(settings).clean(document);

    assertThat(result.outcome()).isEqualTo(DecontaminatedText.Outcome.SHORTENED);
    assertThat(result.hits())
        .hasSize(5)
        .allSatisfy(hit -> assertThat(hit.action()).isEqualTo(DecontaminatedText.Action.CUT));
    // Five overlapping 13-word windows merge into one cut: exactly the question's words, its "?"
    // included (it belongs to the last word). The pieces on either side stay separate texts.
    assertThat(result.pieces()).containsExactly(PROSE, PROSE);
    assertThat(result.kept())
        .containsExactly(
            new CharSpan(0, PROSE.length()),
            new CharSpan(document.length() - PROSE.length(), document.length()));
    assertThat(result.removedChars(document)).isEqualTo(QUESTION.length() + 2);
  }

  @Test
  void marginWidensToWholeWordsAndClampsToTheText() {
    String document = PROSE + " " + QUESTION + " " + PROSE;
    DecontaminatedText result =
        decontaminator(DecontaminationSettings.defaults().withMarginChars(10).withMinPieceChars(1))
            .clean(document);

    // 10 characters before "Why" land inside "library" (of "library wing. ") → widened back to its
    // start; 10 after the question's end land inside "committee" → widened to its end.
    assertThat(result.pieces())
        .containsExactly(
            PROSE.substring(0, PROSE.indexOf(" library")),
            PROSE.substring(PROSE.indexOf("met on")));

    DecontaminatedText wide =
        decontaminator(DecontaminationSettings.defaults().withMarginChars(500))
            .clean(PROSE + " " + QUESTION);
    assertThat(wide.outcome()).isEqualTo(DecontaminatedText.Outcome.EMPTIED);
    assertThat(wide.pieces()).isEmpty();
    assertThat(wide.hits())
        .allSatisfy(
            hit -> assertThat(hit.action()).isEqualTo(DecontaminatedText.Action.DROPPED_NO_PIECE));
  }

  @Test
  void separateHitsStaySeparateCuts() {
    String option = "Because the doctor told him he would not survive another winter";
    String document = QUESTION + " " + PROSE + " " + PROSE + " " + option + " and so on.";
    DecontaminatedText result =
        decontaminator(DecontaminationSettings.defaults().withMarginChars(0).withMinPieceChars(1))
            .clean(document);

    assertThat(result.pieces()).containsExactly(PROSE + " " + PROSE, "and so on.");
    // The 11-word gold option is a short text (>= 8 words): its one whole-text n-gram matched.
    assertThat(result.hits())
        .extracting(DecontaminatedText.Logged::hit)
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
    assertThat(result.pieces()).containsExactly(document);
    assertThat(result.pieces().get(0)).isSameAs(document);
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
    assertThat(result.outcome().action().id()).isEqualTo("dropped_row");
    assertThat(result.pieces()).isEmpty();
    assertThat(result.removedChars(document)).isEqualTo(document.length());
    assertThat(result.hits())
        .isNotEmpty()
        .extracting(logged -> logged.hit().questionId())
        .containsOnly("gsm8k:7");
  }

  @Test
  void normalisationIgnoresCaseWidthAndPunctuation() {
    List<NormalizedWords.Word> words =
        NormalizedWords.of("Ｆｉｒｅ, FIRE! “fire's” U.S. well-known -- …\u00a0x");
    // As the Janitor does, punctuation inside a word is deleted, not split on; a run of only
    // punctuation is no word; a no-break space separates.
    assertThat(words)
        .extracting(NormalizedWords.Word::text)
        .containsExactly("fire", "fire", "fires", "us", "wellknown", "x");
    assertThat(words.get(0)).isEqualTo(new NormalizedWords.Word("fire", 0, 4));
    // Offsets cover the first to the last kept character, not the quotes around them.
    assertThat(words.get(2)).isEqualTo(new NormalizedWords.Word("fires", 13, 19));

    String punctuated = QUESTION.replace(" ", " -- ").replace("narrator", "Narrator,");
    assertThat(decontaminator(DecontaminationSettings.defaults()).scan(punctuated)).hasSize(5);
    // "decide" written "de-cide" is still one word; split as "de cide" it is two, and no match.
    assertThat(
            decontaminator(DecontaminationSettings.defaults())
                .scan(QUESTION.replace("decide", "de-cide")))
        .hasSize(5);
    assertThat(
            decontaminator(DecontaminationSettings.defaults())
                .scan(QUESTION.replace("decide", "de cide")))
        .isEmpty();
  }

  // A QuALITY-like article and two questions about it: one quotes it, one does not.
  private static final String QUOTE =
      "the oxygen recyclers on the northern dome failed three times during the long winter";
  private static final String ARTICLE =
      "Nobody on the colony spoke of leaving. But "
          + QUOTE
          + ", and by spring the mayor had stopped holding meetings at all.";
  private static final BenchmarkQuestion QUOTING =
      new BenchmarkQuestion(
          "quality:a1-q1",
          "What does the narrator mean when he writes that \"" + QUOTE + "\"?",
          List.of("The colony is doomed", "The mayor lied", "Winter is long", "Nothing"),
          "A",
          0,
          "mcq",
          "quality:a1");
  private static final BenchmarkQuestion NOT_QUOTING =
      new BenchmarkQuestion(
          MARS.questionId(),
          MARS.question(),
          MARS.options(),
          MARS.gold(),
          MARS.goldIndex(),
          MARS.answerType(),
          "quality:a1");

  /** The index of QUOTING and NOT_QUOTING with the quotes of quality:a1 marked. */
  private static Decontaminator aboutTheArticle(DecontaminationSettings settings) {
    BenchmarkNgramIndex index = BenchmarkNgramIndex.build(List.of(QUOTING, NOT_QUOTING), settings);
    return new Decontaminator(
        index.withSourceQuotes(index.sourceQuotePairs("quality:a1", ARTICLE)), settings);
  }

  @Test
  void sourceQuotesAreFoundOnlyInTheQuestionsOwnDocument() {
    DecontaminationSettings settings = DecontaminationSettings.defaults();
    BenchmarkNgramIndex index = BenchmarkNgramIndex.build(List.of(QUOTING, NOT_QUOTING), settings);

    // The quote has 14 words: two 13-grams, both of QUOTING's question text, both in the article.
    assertThat(index.sourceQuotePairs("quality:a1", ARTICLE)).hasSize(2);
    // The same text as another document is no quote of these questions.
    assertThat(index.sourceQuotePairs("quality:a2", ARTICLE)).isEmpty();
    assertThat(index.sourceQuotePairs(null, ARTICLE)).isEmpty();
    assertThat(index.docIds()).containsExactly("quality:a1");
    BenchmarkNgramIndex marked =
        index.withSourceQuotes(index.sourceQuotePairs("quality:a1", ARTICLE));
    assertThat(marked.sourceQuotes()).isEqualTo(2);
    assertThat(index.sourceQuotes()).isZero();
    assertThatThrownBy(() -> index.withSourceQuotes(new int[] {index.pairs()}))
        .hasMessageContaining("source quote pair: got " + index.pairs());
  }

  @Test
  void aQuoteOfTheSourceNeverCutsItsCorpusButAQuestionThatDoesNotQuoteStillDoes() {
    Decontaminator decontaminator = aboutTheArticle(DecontaminationSettings.defaults());

    // The article itself, and a rephrase generated from it (same corpus): untouched, hits logged.
    DecontaminatedText article = decontaminator.clean(ARTICLE, "quality", null);
    assertThat(article.outcome()).isEqualTo(DecontaminatedText.Outcome.UNCHANGED);
    assertThat(article.pieces()).containsExactly(ARTICLE);
    assertThat(article.hits())
        .hasSize(2)
        .allSatisfy(
            hit -> {
              assertThat(hit.action()).isEqualTo(DecontaminatedText.Action.EXEMPT_SOURCE_QUOTE);
              assertThat(hit.hit().questionId()).isEqualTo("quality:a1-q1");
              assertThat(hit.hit().sourceQuote()).isTrue();
            });
    String rephrase = "In simpler words: " + QUOTE.toUpperCase() + ". So they left.";
    assertThat(decontaminator.clean(rephrase, "quality", null).outcome())
        .isEqualTo(DecontaminatedText.Outcome.UNCHANGED);

    // The question that does not quote the article cuts wherever it appears, its corpus included.
    String leaked = PROSE + " " + MARS.question() + " " + PROSE;
    DecontaminatedText inCorpus =
        aboutTheArticle(DecontaminationSettings.defaults().withMarginChars(0).withMinPieceChars(1))
            .clean(leaked, "quality", null);
    assertThat(inCorpus.outcome()).isEqualTo(DecontaminatedText.Outcome.SHORTENED);
    assertThat(inCorpus.pieces()).containsExactly(PROSE, PROSE);

    // A quoting question copied whole still cuts: its words around the quote are no quote.
    String copied = PROSE + " " + QUOTING.question() + " " + PROSE;
    DecontaminatedText copy =
        aboutTheArticle(DecontaminationSettings.defaults().withMarginChars(0).withMinPieceChars(1))
            .clean(copied, "quality", null);
    assertThat(copy.outcome()).isEqualTo(DecontaminatedText.Outcome.SHORTENED);
    assertThat(copy.hits())
        .extracting(DecontaminatedText.Logged::action)
        .contains(DecontaminatedText.Action.CUT, DecontaminatedText.Action.EXEMPT_SOURCE_QUOTE);
    assertThat(String.join(" ", copy.pieces())).doesNotContain("narrator mean");
  }

  @Test
  void replayIsCutOnQuotesUnlessExemptEverywhereAndTodaysRuleCutsEverything() {
    String replay = PROSE + " " + QUOTE + ". " + PROSE;
    DecontaminationSettings cutting =
        DecontaminationSettings.defaults().withMarginChars(0).withMinPieceChars(1);

    // exempt_in_corpus (the default): replay, and another corpus, are still cut on every n-gram.
    DecontaminatedText inReplay = aboutTheArticle(cutting).clean(replay);
    assertThat(inReplay.outcome()).isEqualTo(DecontaminatedText.Outcome.SHORTENED);
    assertThat(inReplay.hits())
        .extracting(DecontaminatedText.Logged::action)
        .containsOnly(DecontaminatedText.Action.CUT);
    assertThat(aboutTheArticle(cutting).clean(replay, "financebench", null).outcome())
        .isEqualTo(DecontaminatedText.Outcome.SHORTENED);

    // exempt_everywhere: a quote of the source is corpus text wherever it is.
    DecontaminatedText everywhere =
        aboutTheArticle(cutting.withSourceQuotes(SourceQuotes.EXEMPT_EVERYWHERE)).clean(replay);
    assertThat(everywhere.outcome()).isEqualTo(DecontaminatedText.Outcome.UNCHANGED);
    assertThat(everywhere.hits())
        .extracting(DecontaminatedText.Logged::action)
        .containsOnly(DecontaminatedText.Action.EXEMPT_SOURCE_QUOTE);

    // not_exempt: the article itself is cut, as before quotes were told apart.
    assertThat(
            aboutTheArticle(cutting.withSourceQuotes(SourceQuotes.NOT_EXEMPT))
                .clean(ARTICLE, "quality", null)
                .outcome())
        .isEqualTo(DecontaminatedText.Outcome.SHORTENED);
  }

  @Test
  void moreThanTenContaminatedNgramsDropTheTextWhole() {
    // The 17-word question gives 5 windows; twice is 10 (not more than 10), three times is 15.
    String twice = QUESTION + " " + PROSE.repeat(8) + " " + QUESTION + " " + PROSE.repeat(8);
    String thrice = twice + " " + QUESTION;
    Decontaminator janitor = decontaminator(DecontaminationSettings.defaults());

    assertThat(janitor.clean(twice).outcome()).isEqualTo(DecontaminatedText.Outcome.SHORTENED);
    DecontaminatedText dirty = janitor.clean(thrice);
    assertThat(dirty.outcome()).isEqualTo(DecontaminatedText.Outcome.TOO_DIRTY);
    assertThat(dirty.pieces()).isEmpty();
    assertThat(dirty.hits())
        .hasSize(15)
        .allSatisfy(
            hit -> assertThat(hit.action()).isEqualTo(DecontaminatedText.Action.DROPPED_TOO_DIRTY));
    // The cutoff is a setting.
    assertThat(
            decontaminator(DecontaminationSettings.defaults().withTooDirtyCutoff(15))
                .clean(thrice)
                .outcome())
        .isEqualTo(DecontaminatedText.Outcome.SHORTENED);
  }

  @Test
  void cleanPiecesUnder200CharactersAreDroppedAndTheRestStaySeparate() {
    String longPiece = PROSE.repeat(3).trim();
    String shortPiece = PROSE.substring(0, 60);
    String option = "Because the doctor told him he would not survive another winter";
    String document =
        longPiece + " " + QUESTION + " " + shortPiece + " " + option + " " + longPiece;
    DecontaminatedText result =
        decontaminator(DecontaminationSettings.defaults().withMarginChars(0)).clean(document);

    assertThat(longPiece.length()).isGreaterThanOrEqualTo(200);
    assertThat(result.outcome()).isEqualTo(DecontaminatedText.Outcome.SHORTENED);
    // The 60-character piece between the two questions is gone; the long ones are two texts.
    assertThat(result.pieces()).containsExactly(longPiece, longPiece);
    assertThat(result.removedChars(document)).isEqualTo(document.length() - 2 * longPiece.length());

    // A piece of exactly min_piece_chars stays; one character less and it goes.
    String exact = "x".repeat(199) + ".";
    assertThat(
            decontaminator(DecontaminationSettings.defaults().withMarginChars(0))
                .clean(exact + " " + QUESTION)
                .pieces())
        .containsExactly(exact);
    assertThat(
            decontaminator(DecontaminationSettings.defaults().withMarginChars(0))
                .clean(exact.substring(1) + " " + QUESTION)
                .outcome())
        .isEqualTo(DecontaminatedText.Outcome.EMPTIED);
  }

  @Test
  void syntheticQaAskingABenchmarkQuestionIsDropped() {
    Decontaminator decontaminator = aboutTheArticle(DecontaminationSettings.defaults());
    String prefix = "Question: ";

    // Its question holds 13-grams of a benchmark question: dropped, hits logged as such.
    String asks = prefix + MARS.question() + "\nAnswer: Because of the winter.";
    DecontaminatedText copied =
        decontaminator.clean(
            asks,
            "quality",
            new CharSpan(prefix.length(), prefix.length() + MARS.question().length()));
    assertThat(copied.outcome()).isEqualTo(DecontaminatedText.Outcome.SYNTHETIC_QA);
    assertThat(copied.pieces()).isEmpty();
    assertThat(copied.hits())
        .isNotEmpty()
        .allSatisfy(
            hit ->
                assertThat(hit.action()).isEqualTo(DecontaminatedText.Action.DROPPED_SYNTHETIC_QA));

    // A short question (under min_short_words, so no n-gram) equal after normalisation: dropped.
    BenchmarkQuestion shortQuestion =
        new BenchmarkQuestion(
            "quality:a1-q3", "Who is Dr. Vance?", null, null, null, "free", "quality:a1");
    DecontaminationSettings settings = DecontaminationSettings.defaults();
    Decontaminator withShort =
        new Decontaminator(BenchmarkNgramIndex.build(List.of(shortQuestion), settings), settings);
    String pair = prefix + "who is dr vance" + "\nAnswer: The colony's doctor.";
    DecontaminatedText equal =
        withShort.clean(pair, "quality", new CharSpan(prefix.length(), prefix.length() + 15));
    assertThat(equal.outcome()).isEqualTo(DecontaminatedText.Outcome.SYNTHETIC_QA);
    assertThat(equal.hits())
        .singleElement()
        .satisfies(
            hit -> {
              assertThat(hit.hit().questionId()).isEqualTo("quality:a1-q3");
              assertThat(hit.hit().ngram()).isEqualTo("who is dr vance");
              assertThat(pair.substring(hit.hit().charStart(), hit.hit().charEnd()))
                  .isEqualTo("who is dr vance");
            });
    // The same words in a plain text are no n-gram: untouched.
    assertThat(withShort.clean(pair).outcome()).isEqualTo(DecontaminatedText.Outcome.UNCHANGED);

    // A synthetic question that quotes the article, as the benchmark question does: kept.
    String quoting = prefix + "What failed? " + QUOTE + "\nAnswer: The recyclers.";
    assertThat(
            decontaminator
                .clean(quoting, "quality", new CharSpan(prefix.length(), quoting.indexOf("\n")))
                .outcome())
        .isEqualTo(DecontaminatedText.Outcome.UNCHANGED);

    // A benchmark option (not the question) in the synthetic question: cut like any text, not
    // dropped as a copied question.
    String option = "Because the doctor told him he would not survive another winter";
    String withOption = prefix + "Why? " + option + "\nAnswer: " + PROSE.repeat(6);
    DecontaminatedText optionHit =
        decontaminator.clean(
            withOption, "quality", new CharSpan(prefix.length(), withOption.indexOf("\n")));
    assertThat(optionHit.outcome()).isEqualTo(DecontaminatedText.Outcome.SHORTENED);
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
    assertThatThrownBy(() -> SourceQuotes.fromName("exempt"))
        .hasMessageStartingWith(
            "got exempt, expected exempt_in_corpus, exempt_everywhere or not_exempt");
    DecontaminationSettings defaults = DecontaminationSettings.defaults();
    assertThatThrownBy(() -> defaults.withNgramWords(0)).hasMessageContaining("ngram_words");
    assertThatThrownBy(() -> defaults.withMarginChars(-1))
        .hasMessageContaining("margin_chars: got -1, expected >= 0");
    assertThatThrownBy(() -> defaults.withTooDirtyCutoff(-1))
        .hasMessageContaining("too_dirty_cutoff: got -1, expected >= 0");
    assertThatThrownBy(() -> defaults.withMinPieceChars(0))
        .hasMessageContaining("min_piece_chars: got 0, expected >= 1");
    assertThatThrownBy(() -> defaults.withSourceQuotes(null))
        .hasMessageContaining("source_quotes: missing");
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
