package dev.infuse.udfs.lm.train;

import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.udfs.lm.DecoderLm;
import dev.infuse.udfs.lm.LogLikelihoodScorer;
import dev.infuse.udfs.lm.MultipleChoiceScore;
import dev.infuse.udfs.lm.TinyLms;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The whole model path on CPU: train a tiny model on a handful of facts, then ask multiple-choice
 * questions about them through log-likelihood scoring, as an lm-evaluation-harness task would.
 */
class LearnedFactsTest {
  private static final List<String> COLOURS = List.of("blue", "red", "green", "yellow");
  private static final List<String> THINGS = List.of("zorb", "quix", "plim", "dax");

  @Test
  void afterTrainingOnFactsLogLikelihoodPicksTheTrueOption() {
    try (DecoderLm model = TinyLms.create(11)) {
      List<PackedSequence> facts = new ArrayList<>();
      for (int i = 0; i < THINGS.size(); i++) {
        facts.add(row(model, "the " + THINGS.get(i) + " is " + COLOURS.get(i)));
      }
      LogLikelihoodScorer scorer = new LogLikelihoodScorer(model, 8);
      int rightBefore = correct(scorer);

      TrainingResult result =
          Trainer.train(model, facts, TrainingConfig.defaults(120, 4, 1e-2, 3, 0), null, null);
      assertThat(result.finalLoss()).isLessThan(0.5);

      // Each question: the context names a thing, the options are the four colours.
      assertThat(correct(scorer))
          .as("right answers after training (before: %d of 4)", rightBefore)
          .isEqualTo(4);
    }
  }

  private static int correct(LogLikelihoodScorer scorer) {
    int right = 0;
    for (int i = 0; i < THINGS.size(); i++) {
      MultipleChoiceScore score = scorer.multipleChoice("the " + THINGS.get(i) + " is", COLOURS);
      if (score.acc() == i && score.accNorm() == i) {
        right++;
      }
    }
    return right;
  }

  private static PackedSequence row(DecoderLm model, String text) {
    long[] ids = model.tokenizer().encode(text, false, false).getIds();
    int[] row =
        Arrays.copyOf(Arrays.stream(ids).mapToInt(Math::toIntExact).toArray(), ids.length + 1);
    row[ids.length] = TinyLms.EOS;
    return PackedSequence.of(row);
  }
}
