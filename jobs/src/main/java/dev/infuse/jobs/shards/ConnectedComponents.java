package dev.infuse.jobs.shards;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.least;
import static org.apache.spark.sql.functions.min;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Connected components of an undirected graph given as edges, by iterative min-label propagation:
 * every vertex starts labelled with the smallest of itself and its neighbours, then repeatedly
 * takes the smallest label among its neighbours' labels and its label's label (pointer jumping,
 * which halves long chains each round). It stops when no label falls. The final label is the
 * smallest vertex id of the component, so the representative is chosen deterministically.
 *
 * <p>Each round is a few joins and one count on the driver; only counts come back, never vertices.
 * Each round's labels are locally checkpointed so the lineage does not grow with the number of
 * rounds.
 */
final class ConnectedComponents {
  /** A safety net: min-label propagation with jumping needs about log2(diameter) + 2 rounds. */
  static final int MAX_ROUNDS = 100;

  private ConnectedComponents() {}

  /**
   * @param edges columns {@code a, b} (string vertex ids); direction is ignored
   * @return {@code vertex, label} for every vertex on an edge; label = smallest vertex of its
   *     component
   */
  static Dataset<Row> labels(Dataset<Row> edges) {
    Dataset<Row> both =
        edges
            .select(col("a").as("src"), col("b").as("dst"))
            .union(edges.select(col("b").as("src"), col("a").as("dst")))
            .localCheckpoint();
    Dataset<Row> labels =
        both.groupBy("src")
            .agg(min("dst").as("m"))
            .select(col("src").as("vertex"), least(col("src"), col("m")).as("label"))
            .localCheckpoint();
    for (int round = 0; round < MAX_ROUNDS; round++) {
      // Unique column names on every side: no join condition depends on which dataset a column came
      // from.
      Dataset<Row> fromNeighbours =
          both.join(
                  labels.select(col("vertex").as("n_vertex"), col("label").as("n_label")),
                  col("dst").equalTo(col("n_vertex")))
              .groupBy(col("src").as("n_src"))
              .agg(min("n_label").as("neighbour_label"));
      Dataset<Row> jumped =
          labels
              .select(col("vertex").as("j_vertex"), col("label").as("j_via"))
              .join(
                  labels.select(col("vertex").as("p_vertex"), col("label").as("jump_label")),
                  col("j_via").equalTo(col("p_vertex")))
              .select("j_vertex", "jump_label");
      Dataset<Row> next =
          labels
              .join(fromNeighbours, col("vertex").equalTo(col("n_src")))
              .join(jumped, col("vertex").equalTo(col("j_vertex")))
              .select(
                  col("vertex"),
                  col("label").as("old"),
                  least(col("label"), col("neighbour_label"), col("jump_label")).as("label"))
              .localCheckpoint();
      long fallen = next.where(col("label").lt(col("old"))).count();
      labels = next.select("vertex", "label");
      if (fallen == 0) {
        return labels;
      }
    }
    throw new IllegalStateException(
        "connected components did not converge in " + MAX_ROUNDS + " rounds");
  }
}
