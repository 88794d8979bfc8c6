package dev.infuse.udfs.generate;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class EntitiesTest {
  @Test
  void multiWordNamesPossessivesAndSentenceStarts() {
    List<Sentence> sentences =
        Sentences.split(
            "Korvin met the Comity of Planets. The envoy of Earth Central saw"
                + " Korvin's ship. Then the Ruler spoke to Korvin. Yesterday was cold. He left on Monday.");
    List<String> names =
        Entities.extract(sentences, 10).stream().map(Entities.Entity::name).toList();
    assertThat(names.get(0)).isEqualTo("Korvin");
    assertThat(names)
        .contains("Comity of Planets", "Earth Central", "Ruler")
        .doesNotContain("Then", "The", "Yesterday", "He", "Monday", "Korvin's");
  }

  @Test
  void aCapitalOnlyAtSentenceStartCountsWhenRepeated() {
    List<Sentence> once = Sentences.split("Suddenness is rare. It was.");
    assertThat(Entities.extract(once, 5)).isEmpty();
    List<Sentence> twice = Sentences.split("Didyak came. Didyak left.");
    assertThat(Entities.extract(twice, 5))
        .extracting(Entities.Entity::name)
        .containsExactly("Didyak");
  }

  @Test
  void mentionsAreWholeWordsIgnoringCase() {
    assertThat(Entities.mentions("The ruler spoke.", "Ruler")).isTrue();
    assertThat(Entities.mentions("The rulers spoke.", "Ruler")).isFalse();
    assertThat(Entities.mentions("Tr'en speech", "Tr'en")).isTrue();
  }
}
