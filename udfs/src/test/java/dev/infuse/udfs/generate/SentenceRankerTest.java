package dev.infuse.udfs.generate;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SentenceRankerTest {
  @Test
  void rareSharedTermsOutweighCommonOnes() {
    List<Sentence> sentences =
        Sentences.split(
            "Korvin slept. Korvin ate. Korvin fixed the lie detector wires. " + "Korvin walked.");
    SentenceRanker ranker = new SentenceRanker(sentences);
    assertThat(ranker.top("How did Korvin beat the lie detector?", 2)).first().isEqualTo(2);
    assertThat(ranker.top("the of and", 3)).isEmpty();
    assertThat(ranker.score("detector wires", 2)).isGreaterThan(ranker.score("Korvin", 2));
  }
}
