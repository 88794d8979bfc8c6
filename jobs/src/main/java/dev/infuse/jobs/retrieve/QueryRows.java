package dev.infuse.jobs.retrieve;

import dev.infuse.udfs.embed.TextEmbedder;
import dev.infuse.udfs.model.ExecutorModels;
import dev.infuse.udfs.model.ModelSpec;
import dev.infuse.udfs.retrieve.Bm25Index;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Turns a partition of questions into queries: the question's analyzed tokens (for BM25) and, when
 * the retriever is dense or hybrid, its embedding from the JVM's shared embedder ({@link
 * ExecutorModels}), in batches. Input rows are {@code (question_id, benchmark, corpus,
 * scope_doc_id, question, gold)}.
 */
final class QueryRows implements FlatMapFunction<Iterator<Row>, Row> {
  private static final long serialVersionUID = 1L;
  private static final int WINDOW = 512;

  static final StructType SCHEMA =
      new StructType()
          .add("question_id", DataTypes.StringType, false)
          .add("benchmark", DataTypes.StringType, false)
          .add("corpus", DataTypes.StringType, false)
          .add("scope_doc_id", DataTypes.StringType, true)
          .add("tokens", DataTypes.createArrayType(DataTypes.StringType, false), false)
          .add("vector", DataTypes.createArrayType(DataTypes.FloatType, false), true)
          .add("gold", DataTypes.createArrayType(DataTypes.StringType, false), true);

  /** Null when no query is embedded (BM25 only). */
  private final ModelSpec<TextEmbedder> embedder;

  private final String modelId;

  QueryRows(ModelSpec<TextEmbedder> embedder, String modelId) {
    this.embedder = embedder;
    this.modelId = modelId;
  }

  @Override
  public Iterator<Row> call(Iterator<Row> questions) {
    List<Row> out = new ArrayList<>();
    if (!questions.hasNext()) {
      return out.iterator();
    }
    TextEmbedder model = embedder == null ? null : ExecutorModels.get(embedder);
    if (model != null && !model.modelId().equals(modelId)) {
      throw new IllegalStateException(
          "this executor's embedder is "
              + model.modelId()
              + " but the chunks were embedded"
              + " with "
              + modelId
              + "; every executor must see the same model files");
    }
    while (questions.hasNext()) {
      List<Row> window = new ArrayList<>(WINDOW);
      while (window.size() < WINDOW && questions.hasNext()) {
        window.add(questions.next());
      }
      float[][] vectors = null;
      if (model != null) {
        vectors = model.embed(window.stream().map(row -> row.getString(4)).toList());
      }
      for (int i = 0; i < window.size(); i++) {
        Row q = window.get(i);
        Float[] vector = null;
        if (vectors != null) {
          vector = new Float[vectors[i].length];
          for (int d = 0; d < vector.length; d++) {
            vector[d] = vectors[i][d];
          }
        }
        out.add(
            RowFactory.create(
                q.getString(0),
                q.getString(1),
                q.getString(2),
                q.getString(3),
                Bm25Index.tokens(q.getString(4)).toArray(String[]::new),
                vector,
                q.isNullAt(5) ? null : q.getList(5).toArray()));
      }
    }
    return out.iterator();
  }
}
