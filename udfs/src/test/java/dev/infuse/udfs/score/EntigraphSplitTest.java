package dev.infuse.udfs.score;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.infuse.udfs.score.EntigraphSplit.Article;
import dev.infuse.udfs.score.EntigraphSplit.Document;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class EntigraphSplitTest {

  @Test
  void roundsLikePythonsIntOfPointTwoTimesN() {
    // Python: [int(0.2 * n) for n in [0, 1, 4, 5, 9, 10, 14, 15, 265]]
    int[] n = {0, 1, 4, 5, 9, 10, 14, 15, 265};
    int[] python = {0, 0, 0, 1, 1, 2, 2, 3, 53};
    for (int i = 0; i < n.length; i++) {
      assertThat(EntigraphSplit.validationCount(n[i])).as("n=" + n[i]).isEqualTo(python[i]);
    }
    assertThatThrownBy(() -> EntigraphSplit.validationCount(-1))
        .hasMessageContaining("got -1, expected a count >= 0");
  }

  @Test
  void deduplicatesOnTitleAndAuthorSortsByTitleAndTakesTheLastEightyPercent() {
    List<Document> docs =
        List.of(
            new Document("quality:9", "Moon Song", "Ann Lee"),
            new Document("quality:3", "Attic", "Bo Ray"),
            // The same article under a second id: one article, both ids.
            new Document("quality:4", "Attic", "Bo Ray"),
            // The same title by another author: another article, after Bo Ray's.
            new Document("quality:5", "Attic", "Cy Dunn"),
            new Document("quality:7", "Zebra", null),
            new Document("quality:8", "apple", "Di Fox"),
            new Document("quality:1", "Harbor", "Ed Gray"));

    List<Article> sorted = EntigraphSplit.articles(docs);

    // Code point order: upper case before lower case.
    assertThat(sorted.stream().map(Article::uid))
        .containsExactly(
            "Attic by Bo Ray",
            "Attic by Cy Dunn",
            "Harbor by Ed Gray",
            "Moon Song by Ann Lee",
            "Zebra by ",
            "apple by Di Fox");
    assertThat(sorted.get(0).docIds()).containsExactly("quality:3", "quality:4");
    // 6 articles: int(0.2 * 6) = 1 validation article, the other 5 are test.
    assertThat(EntigraphSplit.test(docs).stream().map(Article::uid))
        .containsExactly(
            "Attic by Cy Dunn",
            "Harbor by Ed Gray",
            "Moon Song by Ann Lee",
            "Zebra by ",
            "apple by Di Fox");
    assertThat(EntigraphSplit.testDocIds(docs))
        .containsExactlyInAnyOrder("quality:5", "quality:1", "quality:9", "quality:7", "quality:8")
        .doesNotContain("quality:3", "quality:4");
  }

  @Test
  void theSplitDoesNotDependOnInputOrderAndTenArticlesGiveTwoValidation() {
    List<Document> docs = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      docs.add(new Document("quality:" + i, "Title " + (char) ('J' - i), "A"));
    }
    List<Document> reversed = new ArrayList<>(docs);
    java.util.Collections.reverse(reversed);

    assertThat(EntigraphSplit.testDocIds(reversed))
        .containsExactlyInAnyOrderElementsOf(EntigraphSplit.testDocIds(docs));
    // Titles A (quality:9) and B (quality:8) are the validation fifth.
    assertThat(EntigraphSplit.testDocIds(docs)).hasSize(8).doesNotContain("quality:9", "quality:8");
  }

  @Test
  void titlesCompareByCodePointAsPythonDoes() {
    // Python: sorted(['\uff21x', '\U0001F600y']) puts the BMP character U+FF21 first; Java's
    // String.compareTo would put the emoji's surrogate (0xD83D) first.
    assertThat(EntigraphSplit.compareCodePoints("\uFF21x", "\uD83D\uDE00y")).isNegative();
    assertThat("\uFF21x".compareTo("\uD83D\uDE00y")).isPositive();
    assertThat(EntigraphSplit.compareCodePoints("ab", "abc")).isNegative();
    assertThat(EntigraphSplit.compareCodePoints("abc", "abc")).isZero();
  }

  @Test
  void aDocumentWithoutATitleIsRefusedByName() {
    assertThatThrownBy(() -> new Document("quality:1", null, "A"))
        .hasMessageContaining("document quality:1: no title");
  }
}
