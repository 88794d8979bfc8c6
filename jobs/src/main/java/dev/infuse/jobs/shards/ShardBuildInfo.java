package dev.infuse.jobs.shards;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.infuse.jobs.config.UnwrappedAsNested;
import dev.infuse.udfs.mix.MixtureSpec;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * A shard build's {@code info.json}: what was built, from which table versions, with which
 * tokenizer and cleaning settings, and where each format's shards are. {@code build-shards} writes
 * it and {@code train --shards} reads it, both through this record, so the file has one shape.
 *
 * @param syntheticTokens tokens of synthetic sources as written to the shards: in the shard
 *     tokenizer, each text's EOS included, with the mixture's repetitions (the scaling axis before
 *     {@code syntheticTokenCounts}; kept so older readers and fits still work)
 * @param syntheticTokenCounts unique and seen synthetic tokens per generator, in {@code
 *     shards.count_tokenizer}: what a scaling fit's x axis counts; null in a build written before
 *     it existed
 * @param composition tokens per source, across the build (the same in every format)
 * @param inputTableVersions the Delta versions the build read, so a rerun over the same versions
 *     writes nothing
 */
// dedup and decontamination are written for the reader and not read back: their records nest a
// udfs settings record flat, which Jackson 2.15 can serialise but not bind.
@JsonIgnoreProperties(
    value = {"dedup", "decontamination"},
    allowGetters = true)
public record ShardBuildInfo(
    String runId,
    String configHash,
    MixtureSpec mixture,
    long seed,
    String tokenizer,
    String tokenizerSha256,
    int vocabSize,
    int eosId,
    int padId,
    int sequenceLength,
    boolean packed,
    String qaTemplate,
    ShardsConfig.Dedup dedup,
    ShardsConfig.Decontamination decontamination,
    Map<String, Long> inputTableVersions,
    Map<String, FormatInfo> formats,
    Map<String, Long> composition,
    Long syntheticTokens,
    SyntheticTokenCounts syntheticTokenCounts) {

  /** Its name in a build directory. */
  public static final String FILE = "info.json";

  private static final ObjectMapper JSON =
      new ObjectMapper()
          .enable(SerializationFeature.INDENT_OUTPUT)
          .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE);

  /**
   * Reads an info.json of any version: unknown keys are skipped, and the cleaning settings (not
   * read back) need no creator that Jackson 2.15 cannot build.
   */
  private static final ObjectMapper READER =
      JSON.copy()
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .setAnnotationIntrospector(new UnwrappedAsNested());

  /**
   * One format of the build.
   *
   * @param directory the format's directory, holding nothing but its shards
   * @param layout what a row, line or document of the format is
   */
  public record FormatInfo(String directory, String layout, List<ShardInfo> shards) {}

  /** One shard of one format: its files with sizes and checksums, and what it holds. */
  public record ShardInfo(
      int shard,
      List<ShardFilesTask.WrittenFile> files,
      long sequences,
      long documents,
      long tokens,
      long paddingTokens) {}

  /** The file's text: indented JSON, keys in snake_case, ending in a newline. */
  String toJson() {
    return json(this);
  }

  /**
   * The {@code info.json} of the build at {@code directory} (any Hadoop URI), or null when it has
   * none.
   */
  public static ShardBuildInfo read(String directory, Configuration conf) {
    Path file = new Path(directory, FILE);
    try {
      FileSystem fs = file.getFileSystem(conf);
      if (!fs.exists(file)) {
        return null;
      }
      try (InputStream in = fs.open(file)) {
        return READER.readValue(in, ShardBuildInfo.class);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  /** Parses an {@code info.json}; an unreadable one is null, as if there were none. */
  static ShardBuildInfo parse(String text) {
    try {
      return READER.readValue(text, ShardBuildInfo.class);
    } catch (JsonProcessingException e) {
      return null;
    }
  }

  /**
   * Any value as the build's summary files write it: indented, snake_case, with a final newline.
   */
  static String json(Object value) {
    try {
      return JSON.writeValueAsString(value) + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("shard summary does not serialise", e);
    }
  }
}
