package dev.infuse.jobs.retrieve;

import dev.infuse.jobs.generate.PromptLibrary;
import dev.infuse.udfs.embed.TextEmbedder;
import dev.infuse.udfs.model.ExecutorModels;
import dev.infuse.udfs.model.ModelSpec;
import dev.infuse.udfs.retrieve.Bm25Index;
import dev.infuse.udfs.retrieve.QueryTemplate;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Turns a partition of questions into queries: the query text the run's {@link QueryTemplate}
 * renders from the question and its document's title, author, year and the options; its analyzed
 * tokens (for BM25) and, when the retriever is dense or hybrid, its embedding from the JVM's shared
 * embedder ({@link ExecutorModels}), in batches. Input rows are {@code (question_id, benchmark,
 * corpus, scope_doc_id, question, gold, scope, title, author, year, options)}.
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
          .add("gold", DataTypes.createArrayType(DataTypes.StringType, false), true)
          .add("scope", DataTypes.StringType, false)
          .add("query", DataTypes.StringType, false);

  /** Null when no query is embedded (BM25 only). */
  private final ModelSpec<TextEmbedder> embedder;

  private final String modelId;

  /** The query template as JSON ({@link PromptLibrary#toJson}): templates are not serializable. */
  private final String templateJson;

  QueryRows(ModelSpec<TextEmbedder> embedder, String modelId, String templateJson) {
    this.embedder = embedder;
    this.modelId = modelId;
    this.templateJson = templateJson;
  }

  @Override
  public Iterator<Row> call(Iterator<Row> questions) {
    List<Row> out = new ArrayList<>();
    if (!questions.hasNext()) {
      return out.iterator();
    }
    QueryTemplate template = QueryTemplate.of(PromptLibrary.fromJson(templateJson));
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
      List<String> queries = new ArrayList<>(window.size());
      for (Row q : window) {
        queries.add(
            template.render(
                new QueryTemplate.Fields(
                    q.getString(4),
                    q.getString(7),
                    q.getString(8),
                    q.getString(9),
                    q.isNullAt(10) ? null : q.getList(10))));
      }
      float[][] vectors = null;
      if (model != null) {
        vectors = model.embed(queries);
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
                Bm25Index.tokens(queries.get(i)).toArray(String[]::new),
                vector,
                q.isNullAt(5) ? null : q.getList(5).toArray(),
                q.getString(6),
                queries.get(i)));
      }
    }
    return out.iterator();
  }
}
