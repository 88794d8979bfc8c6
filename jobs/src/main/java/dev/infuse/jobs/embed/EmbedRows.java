package dev.infuse.jobs.embed;

import dev.infuse.udfs.embed.EmbeddedTexts;
import dev.infuse.udfs.embed.TextEmbedder;
import dev.infuse.udfs.model.ExecutorModels;
import dev.infuse.udfs.model.ModelSpec;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Embeds the chunks of one partition. The embedder is loaded once per executor JVM from the spec
 * ({@link ExecutorModels}); the closure carries only the spec and the model id. Rows are embedded a
 * window at a time, so a partition's vectors never all sit in memory and the embedder can sort each
 * window by length. A chunk that fails is emitted as a failure row for quarantine, never dropped.
 */
final class EmbedRows implements FlatMapFunction<Iterator<Row>, Row> {
  private static final long serialVersionUID = 1L;

  static final String EMBEDDING = "embedding";
  static final String FAILURE = "failure";

  /** Batches per window: enough texts for length sorting to pay, few enough to bound memory. */
  static final int BATCHES_PER_WINDOW = 16;

  static final StructType SCHEMA =
      new StructType()
          .add("kind", DataTypes.StringType, false)
          .add("chunk_id", DataTypes.StringType, false)
          .add("model", DataTypes.StringType, false)
          .add("doc_id", DataTypes.StringType, true)
          .add("text_sha256", DataTypes.StringType, true)
          .add("dimension", DataTypes.IntegerType, true)
          .add("vector", DataTypes.createArrayType(DataTypes.FloatType, false), true)
          .add("text", DataTypes.StringType, true)
          .add("reason", DataTypes.StringType, true)
          .add("windows", DataTypes.IntegerType, true);

  private final ModelSpec<TextEmbedder> spec;
  private final String modelId;
  private final int window;

  /**
   * @param modelId the id the driver resolved; an executor whose model differs fails instead of
   *     mixing models
   * @param batchSize the embedder's batch size, which sets the window
   */
  EmbedRows(ModelSpec<TextEmbedder> spec, String modelId, int batchSize) {
    this.spec = spec;
    this.modelId = modelId;
    this.window = batchSize * BATCHES_PER_WINDOW;
  }

  /**
   * Input rows are {@code (chunk_id, doc_id, text, text_sha256)}; an embedding row also says how
   * many encoder windows its text spans ({@code windows}, more than 1 for a text over the window).
   */
  @Override
  public Iterator<Row> call(Iterator<Row> chunks) {
    if (!chunks.hasNext()) {
      return java.util.Collections.emptyIterator(); // an empty partition loads no model
    }
    TextEmbedder embedder = ExecutorModels.get(spec);
    if (!embedder.modelId().equals(modelId)) {
      throw new IllegalStateException(
          spec.cacheKey()
              + ": this executor's model is "
              + embedder.modelId()
              + " but the driver's is "
              + modelId
              + "; every executor must see the same model files");
    }
    return new Iterator<>() {
      private final ArrayDeque<Row> ready = new ArrayDeque<>();

      @Override
      public boolean hasNext() {
        while (ready.isEmpty() && chunks.hasNext()) {
          List<Row> rows = new ArrayList<>(window);
          while (rows.size() < window && chunks.hasNext()) {
            rows.add(chunks.next());
          }
          embedWindow(embedder, rows, ready);
        }
        return !ready.isEmpty();
      }

      @Override
      public Row next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        return ready.poll();
      }
    };
  }

  private void embedWindow(TextEmbedder embedder, List<Row> rows, ArrayDeque<Row> out) {
    List<String> texts = new ArrayList<>(rows.size());
    for (Row row : rows) {
      texts.add(row.getString(2));
    }
    try {
      EmbeddedTexts embedded = embedder.embedAll(texts);
      for (int i = 0; i < rows.size(); i++) {
        out.add(embedding(rows.get(i), embedded.vectors()[i], embedded.windows()[i]));
      }
    } catch (RuntimeException windowFailure) {
      // Find the chunk at fault: embed one by one, so the rest of the window is still written.
      for (Row row : rows) {
        try {
          EmbeddedTexts one = embedder.embedAll(List.of(row.getString(2)));
          out.add(embedding(row, one.vectors()[0], one.windows()[0]));
        } catch (RuntimeException e) {
          out.add(
              RowFactory.create(
                  FAILURE,
                  row.getString(0),
                  modelId,
                  row.getString(1),
                  row.getString(3),
                  null,
                  null,
                  row.getString(2),
                  "embedding failed: " + e,
                  null));
        }
      }
    }
  }

  private Row embedding(Row chunk, float[] vector, int windows) {
    Float[] boxed = new Float[vector.length];
    for (int d = 0; d < vector.length; d++) {
      boxed[d] = vector[d];
    }
    return RowFactory.create(
        EMBEDDING,
        chunk.getString(0),
        modelId,
        chunk.getString(1),
        chunk.getString(3),
        vector.length,
        boxed,
        null,
        null,
        windows);
  }
}
