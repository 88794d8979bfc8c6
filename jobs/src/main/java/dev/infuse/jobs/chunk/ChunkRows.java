package dev.infuse.jobs.chunk;

import dev.infuse.udfs.common.Keys;
import dev.infuse.udfs.text.CharChunkSpec;
import dev.infuse.udfs.text.CharacterChunker;
import dev.infuse.udfs.text.ChunkPrefixTemplate;
import dev.infuse.udfs.text.ChunkSpec;
import dev.infuse.udfs.text.Chunker;
import dev.infuse.udfs.text.Separator;
import dev.infuse.udfs.text.TextChunk;
import dev.infuse.udfs.text.TextChunker;
import dev.infuse.udfs.text.TextTokenizer;
import dev.infuse.udfs.text.Tokenizers;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Chunks the documents of one partition. The tokenizer is built once per executor JVM (from the
 * broadcast tokenizer.json bytes, or the default from the jar); the closure carries only the
 * settings and the broadcast handle. A document that fails is emitted as a failure row for
 * quarantine, never dropped.
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
          .add("unit", DataTypes.StringType, true)
          .add("max_chars", DataTypes.IntegerType, true)
          .add("overlap_chars", DataTypes.IntegerType, true)
          .add("separators", DataTypes.StringType, true)
          .add("context_prefix", DataTypes.StringType, true)
          .add("reason", DataTypes.StringType, true);

  /**
   * How to cut: by tokens ({@code charSpec} null) or by characters; and the prefix template, or
   * null.
   */
  record Settings(ChunkSpec tokenSpec, CharChunkSpec charSpec, String prefixTemplate)
      implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Token chunking without a prefix: today's default. */
    static Settings tokens(int maxTokens, int overlapTokens) {
      return new Settings(new ChunkSpec(maxTokens, overlapTokens), null, null);
    }

    /** The settings a valid config names. */
    static Settings of(ChunkConfig config) {
      return ChunkConfig.CHARS.equals(config.unit())
          ? new Settings(null, config.charSpec(), config.prefixTemplate())
          : new Settings(
              new ChunkSpec(config.maxTokens(), config.overlapTokens()),
              null,
              config.prefixTemplate());
    }

    String unit() {
      return charSpec == null ? ChunkConfig.TOKENS : ChunkConfig.CHARS;
    }

    /** For the log: the size and overlap with their unit. */
    String describe() {
      return charSpec == null
          ? "at most " + tokenSpec.maxTokens() + " tokens (overlap " + tokenSpec.overlapTokens()
          : "at most "
              + charSpec.maxChars()
              + " characters (overlap "
              + charSpec.overlapChars()
              + ", separators "
              + Separator.names(charSpec.separators());
    }
  }

  private final Settings settings;
  private final Broadcast<byte[]> tokenizerJson;

  /**
   * @param tokenizerJson the tokenizer.json bytes, or null for the default tokenizer
   */
  ChunkRows(Settings settings, Broadcast<byte[]> tokenizerJson) {
    this.settings = settings;
    this.tokenizerJson = tokenizerJson;
  }

  /** Input rows are {@code (doc_id, text, corpus, title, source, meta)}. */
  @Override
  public Iterator<Row> call(Iterator<Row> documents) {
    TextTokenizer tokenizer =
        tokenizerJson == null
            ? Tokenizers.defaultTokenizer()
            : Tokenizers.fromBytes(tokenizerJson.value());
    CharChunkSpec chars = settings.charSpec();
    ChunkSpec tokens = settings.tokenSpec();
    TextChunker chunker =
        chars == null ? new Chunker(tokenizer, tokens) : new CharacterChunker(tokenizer, chars);
    ChunkPrefixTemplate template =
        settings.prefixTemplate() == null
            ? null
            : ChunkPrefixTemplate.parse(settings.prefixTemplate());
    Integer maxTokens = tokens == null ? null : tokens.maxTokens();
    Integer overlapTokens = tokens == null ? null : tokens.overlapTokens();
    Integer maxChars = chars == null ? null : chars.maxChars();
    Integer overlapChars = chars == null ? null : chars.overlapChars();
    String separators = chars == null ? null : Separator.names(chars.separators());
    List<Row> rows = new ArrayList<>();
    while (documents.hasNext()) {
      Row document = documents.next();
      String docId = document.getString(0);
      try {
        String prefix =
            template == null
                ? null
                : template.render(
                    new ChunkPrefixTemplate.DocumentFields(
                        docId,
                        document.getString(2),
                        document.getString(3),
                        document.getString(4),
                        document.isNullAt(5) ? Map.of() : document.getJavaMap(5)));
        for (TextChunk chunk : chunker.chunk(document.getString(1))) {
          String chunkId =
              chars == null
                  ? Keys.shortHash(
                      docId,
                      tokenizer.id(),
                      String.valueOf(maxTokens),
                      String.valueOf(overlapTokens),
                      String.valueOf(chunk.ordinal()))
                  : Keys.shortHash(
                      docId,
                      ChunkConfig.CHARS,
                      String.valueOf(maxChars),
                      String.valueOf(overlapChars),
                      separators,
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
                  settings.unit(),
                  maxChars,
                  overlapChars,
                  separators,
                  prefix,
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
                settings.unit(),
                maxChars,
                overlapChars,
                separators,
                null,
                "chunking failed: " + e));
      }
    }
    return rows.iterator();
  }
}
