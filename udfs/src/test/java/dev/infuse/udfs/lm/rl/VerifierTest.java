package dev.infuse.udfs.lm.rl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import ai.djl.Device;
import dev.infuse.udfs.lm.CharTokenizer;
import dev.infuse.udfs.lm.DirectMemoryRecycler;
import dev.infuse.udfs.lm.ModelDirectory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VerifierTest {
  @TempDir Path temp;

  private static ScalarVerifier verifier(long seed) {
    return ScalarVerifier.create(
        RlFixtures.config(),
        CharTokenizer.json().getBytes(StandardCharsets.UTF_8),
        Device.cpu(),
        seed);
  }

  private static List<VerifierExample> toySet() {
    List<VerifierExample> examples = new ArrayList<>();
    for (String prompt : List.of("Q1:", "Q2:")) {
      for (String lead : List.of("a ", "b ")) {
        examples.add(new VerifierExample(RlFixtures.ids(prompt), RlFixtures.ids(lead + "yes"), 1));
        examples.add(new VerifierExample(RlFixtures.ids(prompt), RlFixtures.ids(lead + "no"), 0));
      }
    }
    return examples;
  }

  @Test
  void trainingSeparatesCorrectFromWrongAnswers() {
    try (ScalarVerifier verifier = verifier(5)) {
      int[] prompt = RlFixtures.ids("Q1:");
      double yesBefore = verifier.score(prompt, RlFixtures.ids("a yes"));
      assertThat(yesBefore).isCloseTo(0.5, within(0.2));

      double loss =
          VerifierTrainer.train(verifier, toySet(), new VerifierTrainer.Config(40, 4, 1e-2, 3));

      double yes = verifier.score(prompt, RlFixtures.ids("a yes"));
      double no = verifier.score(prompt, RlFixtures.ids("a no"));
      assertThat(yes).isGreaterThan(0.7);
      assertThat(no).isLessThan(0.3);
      assertThat(loss).isLessThan(Math.log(2));
      double[] batch =
          verifier.scores(
              List.of(prompt, prompt), List.of(RlFixtures.ids("a yes"), RlFixtures.ids("a no")));
      assertThat(batch[0]).isCloseTo(yes, within(1e-5));
      assertThat(batch[1]).isCloseTo(no, within(1e-5));

      Path dir = temp.resolve("verifier");
      verifier.save(dir);
      assertThat(ScalarVerifier.isVerifier(dir)).isTrue();
      assertThat(ModelDirectory.readConfig(dir)).isEqualTo(RlFixtures.config());
      try (ScalarVerifier loaded = ScalarVerifier.load(dir, Device.cpu())) {
        assertThat(loaded.head().hasBias()).isFalse();
        assertThat(loaded.score(prompt, RlFixtures.ids("a yes"))).isCloseTo(yes, within(1e-6));
      }
    }
  }

  /**
   * The BCE loss takes max(z, 0), a constant in the recorded graph: training beside a thread that
   * recycles direct memory must end at the quiet run's loss and scores ({@link
   * dev.infuse.udfs.lm.GraphConstants}).
   */
  @Test
  void trainingIsUnchangedWhileDirectMemoryIsRecycled() throws InterruptedException {
    double[] quiet = trainedLossAndScore();
    double[] busy;
    try (DirectMemoryRecycler recycler = DirectMemoryRecycler.start()) {
      busy = trainedLossAndScore();
    }
    assertThat(busy).containsExactly(quiet);
  }

  private static double[] trainedLossAndScore() {
    try (ScalarVerifier verifier = verifier(5)) {
      double loss =
          VerifierTrainer.train(verifier, toySet(), new VerifierTrainer.Config(40, 4, 1e-2, 3));
      return new double[] {loss, verifier.score(RlFixtures.ids("Q1:"), RlFixtures.ids("a yes"))};
    }
  }

  @Test
  void badLabelsAreRejected() {
    try (ScalarVerifier verifier = verifier(5)) {
      List<VerifierExample> examples =
          List.of(new VerifierExample(RlFixtures.ids("Q:"), RlFixtures.ids("x"), 2));

      assertThatThrownBy(
              () ->
                  VerifierTrainer.train(
                      verifier, examples, new VerifierTrainer.Config(1, 1, 1e-3, 1)))
          .hasMessageContaining("examples[0]: label 2, expected 0 or 1");
    }
  }

  private record Answer(String question, int label, int index) {}

  @Test
  void balanceKeepsEqualCountsPerQuestionUpToTheCap() {
    List<Answer> answers = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      answers.add(new Answer("q1", 1, i));
    }
    answers.add(new Answer("q1", 0, 3));
    for (int i = 0; i < 12; i++) {
      answers.add(new Answer("q2", 1, i));
    }
    for (int i = 0; i < 15; i++) {
      answers.add(new Answer("q2", 0, 100 + i));
    }
    answers.add(new Answer("q3", 1, 0));

    List<Answer> kept = VerifierTrainer.balance(answers, Answer::question, Answer::label, 10, 9);

    assertThat(kept.stream().filter(a -> a.question().equals("q1") && a.label() == 1)).hasSize(1);
    assertThat(kept.stream().filter(a -> a.question().equals("q1") && a.label() == 0)).hasSize(1);
    assertThat(kept.stream().filter(a -> a.question().equals("q2") && a.label() == 1)).hasSize(10);
    assertThat(kept.stream().filter(a -> a.question().equals("q2") && a.label() == 0)).hasSize(10);
    assertThat(kept.stream().filter(a -> a.question().equals("q3"))).isEmpty();
    assertThat(kept).doesNotHaveDuplicates();
    assertThat(VerifierTrainer.balance(answers, Answer::question, Answer::label, 10, 9))
        .isEqualTo(kept);
  }
}
