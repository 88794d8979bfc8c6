package dev.infuse.udfs.score;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * EntiGraph's QuALITY evaluation split (ZitongYang/Synthetic_Continued_Pretraining, {@code
 * tasks/quality.py}), so Infuse's QuALITY numbers can sit beside the paper's: the articles of the
 * train and dev files are deduplicated on {@code "<title> by <author>"} ({@code
 * QuALITYArticle.uid}, whose questions are merged), sorted by title, and {@code performance_stats}
 * keeps the first {@code int(0.2 * n)} as validation and the rest, the last 80%, as test. On the
 * full train + dev files that is 265 articles: 53 validation, 212 test.
 *
 * <p>Three details are reproduced exactly: the rounding is Python's {@code int(0.2 * n)} (a
 * truncation of the double product, so 0.8 of the articles rounded up go to test); titles compare
 * by Unicode code point, as Python's {@code str} does; and several documents (QuALITY rows with
 * different article ids) that share a title and an author are one article. Where two different
 * articles share a title, EntiGraph keeps them in file order (a stable sort); the warehouse does
 * not keep file order, so they are ordered by author, then by their smallest {@code doc_id}. This
 * matters only when such a pair straddles the boundary.
 */
public final class EntigraphSplit {
  /** The scores subset of the test articles' questions. */
  public static final String TEST_SUBSET = "entigraph_test";

  /** The share of the sorted articles that is validation: {@code int(0.2 * n)}. */
  static final double VALIDATION_FRACTION = 0.2;

  private EntigraphSplit() {}

  /**
   * One document as the split sees it.
   *
   * @param docId documents.doc_id
   * @param title the article's title; never null
   * @param author the article's author; null is keyed as the empty string
   */
  public record Document(String docId, String title, String author) {
    public Document {
      Objects.requireNonNull(docId, "docId");
      if (title == null) {
        throw new IllegalArgumentException(
            "document " + docId + ": no title, expected one (EntiGraph sorts articles by title)");
      }
    }

    /** {@code QuALITYArticle.uid}: the key articles are deduplicated on. */
    public String uid() {
      return title + " by " + (author == null ? "" : author);
    }
  }

  /** Articles after deduplication and sorting: each with every doc_id it folds. */
  public record Article(String uid, String title, String author, List<String> docIds) {}

  /** The deduplicated articles in EntiGraph's order. */
  public static List<Article> articles(List<Document> documents) {
    Map<String, List<Document>> byUid = new LinkedHashMap<>();
    for (Document d : documents) {
      byUid.computeIfAbsent(d.uid(), k -> new ArrayList<>()).add(d);
    }
    List<Article> articles = new ArrayList<>(byUid.size());
    for (List<Document> group : byUid.values()) {
      Document first = group.get(0);
      List<String> ids = group.stream().map(Document::docId).distinct().sorted().toList();
      articles.add(new Article(first.uid(), first.title(), first.author(), ids));
    }
    articles.sort(
        Comparator.comparing(Article::title, EntigraphSplit::compareCodePoints)
            .thenComparing(
                a -> a.author() == null ? "" : a.author(), EntigraphSplit::compareCodePoints)
            .thenComparing(a -> a.docIds().get(0), EntigraphSplit::compareCodePoints));
    return articles;
  }

  /** How many of {@code n} sorted articles are validation: Python's {@code int(0.2 * n)}. */
  public static int validationCount(int n) {
    if (n < 0) {
      throw new IllegalArgumentException("articles: got " + n + ", expected a count >= 0");
    }
    return (int) (VALIDATION_FRACTION * n);
  }

  /** The test articles: the sorted articles after the first {@link #validationCount}. */
  public static List<Article> test(List<Document> documents) {
    List<Article> sorted = articles(documents);
    return sorted.subList(validationCount(sorted.size()), sorted.size());
  }

  /** Every doc_id of the test articles. */
  public static Set<String> testDocIds(List<Document> documents) {
    Set<String> ids = new LinkedHashSet<>();
    for (Article a : test(documents)) {
      ids.addAll(a.docIds());
    }
    return ids;
  }

  /** Python's {@code str} order: by Unicode code point (Java's compareTo orders UTF-16 units). */
  static int compareCodePoints(String a, String b) {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      int ca = a.codePointAt(i);
      int cb = b.codePointAt(j);
      if (ca != cb) {
        return Integer.compare(ca, cb);
      }
      i += Character.charCount(ca);
      j += Character.charCount(cb);
    }
    return Boolean.compare(i < a.length(), j < b.length());
  }
}
