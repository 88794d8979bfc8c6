package dev.infuse.jobs.score;

import static org.apache.spark.sql.functions.array;
import static org.apache.spark.sql.functions.array_union;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.when;

import dev.infuse.jobs.io.Warehouse;
import dev.infuse.udfs.ingest.QualityReader;
import dev.infuse.udfs.score.EntigraphSplit;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * The {@code entigraph_test} scoring subset: QuALITY questions whose article is in the last 80% of
 * EntiGraph's sorted, deduplicated train + dev articles ({@link EntigraphSplit}).
 *
 * <p>Computed at score time, not stored by ingest: the split is a property of the whole set of
 * articles (one article more shifts the boundary), so it is derived each time from the QuALITY
 * questions of splits train and dev in {@code questions} (the files EntiGraph loads) and their
 * {@code documents} (title, {@code meta.author}). The same warehouse always gives the same subset.
 * On a sample, the split is over the sample's articles: the subset is EntiGraph's rule, not
 * EntiGraph's 212 articles, unless all 265 are ingested.
 */
final class EntigraphTest {
  /** The splits EntiGraph's {@code QuALITY('all')} reads. */
  static final List<String> SPLITS = List.of("train", "dev");

  /** The full train + dev set EntiGraph splits: 265 articles. */
  static final int FULL_ARTICLES = 265;

  private final Set<String> testDocIds;
  private final int articles;
  private final int testArticles;
  private final long untitled;

  private EntigraphTest(Set<String> testDocIds, int articles, int testArticles, long untitled) {
    this.testDocIds = testDocIds;
    this.articles = articles;
    this.testArticles = testArticles;
    this.untitled = untitled;
  }

  /** The split of the warehouse's QuALITY articles; empty when it holds none. */
  static EntigraphTest of(Warehouse warehouse) {
    if (!warehouse.exists("questions") || !warehouse.exists("documents")) {
      return new EntigraphTest(Set.of(), 0, 0, 0);
    }
    return of(warehouse.read("questions"), warehouse.read("documents"));
  }

  static EntigraphTest of(Dataset<Row> questions, Dataset<Row> documents) {
    Dataset<Row> docIds =
        questions
            .filter(
                col("benchmark")
                    .equalTo(QualityReader.FORMAT)
                    .and(col("split").isin(SPLITS.toArray()))
                    .and(col("doc_id").isNotNull()))
            .select("doc_id")
            .distinct();
    List<Row> rows =
        docIds
            .join(documents.select(col("doc_id"), col("title"), col("meta")), "doc_id")
            .select(col("doc_id"), col("title"), col("meta").getItem("author").as("author"))
            .collectAsList()
            .stream()
            // on the driver: orderBy would add a Spark job to sample the sort's ranges
            .sorted(Comparator.comparing((Row r) -> r.getString(0)))
            .toList();
    List<EntigraphSplit.Document> split = new ArrayList<>(rows.size());
    long untitled = 0;
    for (Row r : rows) {
      if (r.isNullAt(1)) {
        // EntiGraph sorts by title and could not place it either; it stays out of both halves.
        untitled++;
        continue;
      }
      split.add(new EntigraphSplit.Document(r.getString(0), r.getString(1), r.getString(2)));
    }
    List<EntigraphSplit.Article> sorted = EntigraphSplit.articles(split);
    int test = sorted.size() - EntigraphSplit.validationCount(sorted.size());
    return new EntigraphTest(EntigraphSplit.testDocIds(split), sorted.size(), test, untitled);
  }

  /** {@code questions} with {@code entigraph_test} added to the subsets of the test articles'. */
  Dataset<Row> addSubset(Dataset<Row> questions) {
    if (testDocIds.isEmpty()) {
      return questions;
    }
    return questions.withColumn(
        "subsets",
        when(
                col("benchmark")
                    .equalTo(QualityReader.FORMAT)
                    .and(col("doc_id").isin(testDocIds.toArray())),
                array_union(col("subsets"), array(lit(EntigraphSplit.TEST_SUBSET))))
            .otherwise(col("subsets")));
  }

  /** For the run's counts. */
  Map<String, Long> details() {
    Map<String, Long> d = new LinkedHashMap<>();
    d.put("entigraph_split.articles", (long) articles);
    d.put("entigraph_split.test_articles", (long) testArticles);
    if (untitled > 0) {
      d.put("entigraph_split.untitled_documents", untitled);
    }
    return d;
  }

  void print(PrintWriter out) {
    if (articles == 0) {
      return;
    }
    out.printf(
        Locale.ROOT,
        "  %s: %d of %d QuALITY train+dev article(s) (EntiGraph's split%s)%n",
        EntigraphSplit.TEST_SUBSET,
        testArticles,
        articles,
        articles == FULL_ARTICLES ? "" : "; over this warehouse's articles, not the full 265");
    if (untitled > 0) {
      out.printf(
          Locale.ROOT,
          "  %s: %d document(s) without a title left out of the split%n",
          EntigraphSplit.TEST_SUBSET,
          untitled);
    }
    out.flush();
  }

  Set<String> testDocIds() {
    return testDocIds;
  }
}
