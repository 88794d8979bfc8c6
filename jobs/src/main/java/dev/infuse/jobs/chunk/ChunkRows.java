package dev.infuse.jobs.chunk;

import dev.infuse.udfs.common.Keys;
import dev.infuse.udfs.text.ChunkSpec;
import dev.infuse.udfs.text.Chunker;
import dev.infuse.udfs.text.TextChunk;
import dev.infuse.udfs.text.TextTokenizer;
import dev.infuse.udfs.text.Tokenizers;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Chunks the documents of one partition. The tokenizer is built once per executor JVM (from the
 * broadcast tokenizer.json bytes, or the default from the jar); the closure carries only the spec
 * and the broadcast handle. A document that fails is emitted as a failure row for quarantine, never
 * dropped.
 */
final class ChunkRows implements FlatMapFunction<Iterator<Row>, Row> {
  private static final long serialVersionUID = 1L;

  static final String CHUNK = "chunk";
  static final String FAILURE = "failure";

  static final StructType SCHEMA =
      new StructType()
          .add("kind", DataTypes.StringType, false)
          .add("chunk_id", DataTypes.StringType, true)
          .add("doc_id", DataTypes.StringType, false)
          .add("ordinal", DataTypes.IntegerType, true)
          .add("text", DataTypes.StringType, true)
          .add("char_start", DataTypes.IntegerType, true)
          .add("char_end", DataTypes.IntegerType, true)
          .add("n_tokens", DataTypes.IntegerType, true)
          .add("tokenizer", DataTypes.StringType, true)
          .add("max_tokens", DataTypes.IntegerType, true)
          .add("overlap_tokens", DataTypes.IntegerType, true)
          .add("reason", DataTypes.StringType, true);

  private final int maxTokens;
  private final int overlapTokens;
  private final Broadcast<byte[]> tokenizerJson;

  /**
   * @param tokenizerJson the tokenizer.json bytes, or null for the default tokenizer
   */
  ChunkRows(int maxTokens, int overlapTokens, Broadcast<byte[]> tokenizerJson) {
    this.maxTokens = maxTokens;
    this.overlapTokens = overlapTokens;
    this.tokenizerJson = tokenizerJson;
  }

  /** Input rows are {@code (doc_id, text)}. */
  @Override
  public Iterator<Row> call(Iterator<Row> documents) {
    TextTokenizer tokenizer =
        tokenizerJson == null
            ? Tokenizers.defaultTokenizer()
            : Tokenizers.fromBytes(tokenizerJson.value());
    Chunker chunker = new Chunker(tokenizer, new ChunkSpec(maxTokens, overlapTokens));
    List<Row> rows = new ArrayList<>();
    while (documents.hasNext()) {
      Row document = documents.next();
      String docId = document.getString(0);
      try {
        for (TextChunk chunk : chunker.chunk(document.getString(1))) {
          String chunkId =
              Keys.shortHash(
                  docId,
                  tokenizer.id(),
                  String.valueOf(maxTokens),
                  String.valueOf(overlapTokens),
                  String.valueOf(chunk.ordinal()));
          rows.add(
              RowFactory.create(
                  CHUNK,
                  chunkId,
                  docId,
                  chunk.ordinal(),
                  chunk.text(),
                  chunk.charStart(),
                  chunk.charEnd(),
                  chunk.nTokens(),
                  tokenizer.id(),
                  maxTokens,
                  overlapTokens,
                  null));
        }
      } catch (RuntimeException e) {
        rows.add(
            RowFactory.create(
                FAILURE,
                null,
                docId,
                null,
                null,
                null,
                null,
                null,
                tokenizer.id(),
                maxTokens,
                overlapTokens,
                "chunking failed: " + e));
      }
    }
    return rows.iterator();
  }
}
