package dev.infuse.udfs.maporl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class BoxedAnswersTest {
  private static ExtractedAnswer gsm(String response) {
    return BoxedAnswers.extract(response, QuestionKind.GSM8K, 0);
  }

  @Test
  void gsm8kTakesTheLastBoxAndWritesCanonicalNumbers() {
    assertThat(gsm("first \\boxed{3} then Answer: \\boxed{1,234.00}"))
        .isEqualTo(ExtractedAnswer.ok("1234"));
    assertThat(gsm("Answer: \\boxed{$18}")).isEqualTo(ExtractedAnswer.ok("18"));
    assertThat(gsm("Answer: \\boxed{0.50}")).isEqualTo(ExtractedAnswer.ok("0.5"));
    assertThat(gsm("Answer: \\boxed{-7 dollars.}")).isEqualTo(ExtractedAnswer.ok("-7"));
    assertThat(gsm("Answer: \\boxed{\\text{72}}")).isEqualTo(ExtractedAnswer.ok("72"));
    assertThat(gsm("\\boxed{0.00}")).isEqualTo(ExtractedAnswer.ok("0"));
  }

  @Test
  void gsm8kWithoutABoxOrANumberIsInvalid() {
    assertThat(gsm("The answer is 42."))
        .isEqualTo(ExtractedAnswer.invalid(ExtractedAnswer.NO_BOXED));
    assertThat(gsm("Answer: \\boxed{forty}"))
        .isEqualTo(ExtractedAnswer.invalid(ExtractedAnswer.UNPARSEABLE));
    assertThat(gsm("Answer: \\boxed{3-4}").status()).isEqualTo(ExtractedAnswer.UNPARSEABLE);
    assertThat(gsm("Answer: \\boxed{1.2.3}").answer()).isEqualTo(ExtractedAnswer.INVALID);
    // a box cut off at the end does not count: the earlier complete one does
    assertThat(gsm("\\boxed{5} and then \\boxed{6")).isEqualTo(ExtractedAnswer.ok("5"));
    assertThat(gsm("\\boxed{6")).isEqualTo(ExtractedAnswer.invalid(ExtractedAnswer.NO_BOXED));
  }

  @Test
  void nestedBracesStayInsideTheBox() {
    assertThat(BoxedAnswers.lastBoxed("x \\boxed{\\frac{1}{2}} y")).isEqualTo("\\frac{1}{2}");
    assertThat(BoxedAnswers.lastBoxed("no box")).isNull();
  }

  @Test
  void aBoxAsAWordPieceDecoderWritesItIsReadToo() {
    // MiniLM's WordPiece decode of "Answer: \boxed{9}", as an Infuse-trained policy writes it.
    assertThat(gsm("1 + 4 = 9. answer : \\ boxed { 9 }")).isEqualTo(ExtractedAnswer.ok("9"));
    assertThat(gsm("\\ boxed { 5 } then \\boxed{6}")).isEqualTo(ExtractedAnswer.ok("6"));
    // A backslash and the word alone, without the brace, is still no box.
    assertThat(gsm("\\ boxed 9")).isEqualTo(ExtractedAnswer.invalid(ExtractedAnswer.NO_BOXED));
  }

  @Test
  void anliReadsALabelByContainmentInTheReferencesOrder() {
    assertThat(BoxedAnswers.extract("so \\boxed{Neutral.}", QuestionKind.ANLI, 0))
        .isEqualTo(ExtractedAnswer.ok("neutral"));
    assertThat(BoxedAnswers.extract("\\boxed{\\text{Contradiction}}", QuestionKind.ANLI, 0))
        .isEqualTo(ExtractedAnswer.ok("contradiction"));
    assertThat(BoxedAnswers.extract("\\boxed{neutral or entailment}", QuestionKind.ANLI, 0))
        .isEqualTo(ExtractedAnswer.ok("entailment"));
    assertThat(BoxedAnswers.extract("\\boxed{maybe}", QuestionKind.ANLI, 0).status())
        .isEqualTo(ExtractedAnswer.UNPARSEABLE);
  }

  @Test
  void mcqReadsALetterWithinTheOptions() {
    for (String box :
        new String[] {"B", "(B)", "B.", "B) the second", "B: x", "Option B", "b", "(b)"}) {
      assertThat(BoxedAnswers.extract("Answer: \\boxed{" + box + "}", QuestionKind.MCQ, 4))
          .as(box)
          .isEqualTo(ExtractedAnswer.ok("B"));
    }
    assertThat(BoxedAnswers.extract("\\boxed{E}", QuestionKind.MCQ, 4).status())
        .isEqualTo(ExtractedAnswer.UNPARSEABLE);
    assertThat(BoxedAnswers.extract("\\boxed{because}", QuestionKind.MCQ, 4).status())
        .isEqualTo(ExtractedAnswer.UNPARSEABLE);
  }

  @Test
  void correctnessComparesNumbersOrCaseInsensitiveText() {
    assertThat(BoxedAnswers.isCorrect(ExtractedAnswer.ok("1234"), "1,234", QuestionKind.GSM8K))
        .isTrue();
    assertThat(BoxedAnswers.isCorrect(ExtractedAnswer.ok("72"), "72.0", QuestionKind.GSM8K))
        .isTrue();
    assertThat(BoxedAnswers.isCorrect(ExtractedAnswer.ok("72"), "so #### 72", QuestionKind.GSM8K))
        .isTrue();
    assertThat(BoxedAnswers.isCorrect(ExtractedAnswer.ok("71"), "72", QuestionKind.GSM8K))
        .isFalse();
    assertThat(BoxedAnswers.isCorrect(ExtractedAnswer.ok("neutral"), "Neutral", QuestionKind.ANLI))
        .isTrue();
    assertThat(BoxedAnswers.isCorrect(ExtractedAnswer.ok("B"), "b", QuestionKind.MCQ)).isTrue();
    assertThat(
            BoxedAnswers.isCorrect(
                ExtractedAnswer.invalid(ExtractedAnswer.NO_BOXED), "invalid", QuestionKind.MCQ))
        .isFalse();
  }

  @Test
  void invalidAnswersCarryTheInvalidString() {
    assertThatThrownBy(() -> new ExtractedAnswer("3", ExtractedAnswer.NO_BOXED))
        .hasMessageContaining("expected invalid");
    assertThatThrownBy(() -> new ExtractedAnswer("3", "odd")).hasMessageContaining("got odd");
  }

  @Test
  void namesParseWithTheExpectedOnesInTheError() {
    assertThat(QuestionKind.fromName("anli")).isEqualTo(QuestionKind.ANLI);
    assertThat(QuestionKind.MCQ.id()).isEqualTo("mcq");
    assertThatThrownBy(() -> QuestionKind.fromName("gsm8"))
        .hasMessageContaining("got gsm8")
        .hasMessageContaining("gsm8k, anli or mcq");
    assertThat(Horizon.fromName("discounted_sum")).isEqualTo(Horizon.DISCOUNTED_SUM);
    assertThat(Share.fromName("individual")).isEqualTo(Share.INDIVIDUAL);
    assertThat(IncentiveConvention.fromName("reference-code"))
        .isEqualTo(IncentiveConvention.REFERENCE_CODE);
    assertThatThrownBy(() -> IncentiveConvention.fromName("reference_code"))
        .hasMessageContaining("expected paper or reference-code")
        .hasMessageContaining("did you mean reference-code?");
  }
}
