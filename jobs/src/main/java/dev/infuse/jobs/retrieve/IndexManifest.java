package dev.infuse.jobs.retrieve;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.infuse.jobs.chunk.RagConfig;
import dev.infuse.udfs.retrieve.Bm25Statistics;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * What the {@code index} job built, in {@code <warehouse>/_indexes/bm25/manifest.json}: the build
 * directory holding the shards' Lucene files and the corpus term statistics, the {@code chunks}
 * version it was built from (so {@code retrieve} can refuse a stale index), and per corpus its
 * shard count and collection statistics. The manifest is written last and replaced whole, so it
 * always names a complete build.
 *
 * @param build the build directory, relative to the manifest's directory
 */
public record IndexManifest(
    String analyzer,
    long chunksVersion,
    int chunksPerShard,
    String build,
    Map<String, CorpusShards> corpora) {

  /**
   * One corpus: its shard count, chunk count and BM25 collection statistics summed over its shards.
   */
  public record CorpusShards(
      int shards, long chunks, long maxDoc, long docCount, long sumDocFreq, long sumTotalTermFreq) {
    /** The collection part of the corpus statistics; term counts are looked up per query batch. */
    public Bm25Statistics statistics(Map<String, Bm25Statistics.TermCounts> terms) {
      return new Bm25Statistics(maxDoc, docCount, sumDocFreq, sumTotalTermFreq, terms);
    }
  }

  static final String FILE = "manifest.json";
  private static final ObjectMapper JSON =
      new ObjectMapper()
          .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
          .enable(SerializationFeature.INDENT_OUTPUT);

  public IndexManifest {
    corpora = new TreeMap<>(corpora);
  }

  /**
   * The directory of every index build of a RAG recipe: {@code <warehouse>/_indexes/bm25} for the
   * default recipe, {@code <warehouse>/_indexes/bm25-<recipe>} for another, so that each recipe
   * searches only its own chunks.
   */
  public static String root(String warehouseRoot, String recipe) {
    return warehouseRoot
        + "/_indexes/bm25"
        + (RagConfig.DEFAULT.equals(recipe) ? "" : "-" + recipe);
  }

  public String filesPath(String indexRoot) {
    return indexRoot + "/" + build + "/files";
  }

  public String termsPath(String indexRoot) {
    return indexRoot + "/" + build + "/terms";
  }

  /** Each corpus's first global shard number: shard s of corpus c is global shard offset(c) + s. */
  public Map<String, Integer> offsets() {
    Map<String, Integer> shards = new TreeMap<>();
    corpora.forEach((corpus, c) -> shards.put(corpus, c.shards()));
    return offsets(shards);
  }

  /** Shard counts per corpus. */
  public Map<String, Integer> shards() {
    Map<String, Integer> shards = new TreeMap<>();
    corpora.forEach((corpus, c) -> shards.put(corpus, c.shards()));
    return shards;
  }

  /** Offsets in corpus name order, from shard counts per corpus. */
  static Map<String, Integer> offsets(Map<String, Integer> shards) {
    Map<String, Integer> offsets = new LinkedHashMap<>();
    int next = 0;
    for (Map.Entry<String, Integer> corpus : new TreeMap<>(shards).entrySet()) {
      offsets.put(corpus.getKey(), next);
      next += corpus.getValue();
    }
    return offsets;
  }

  public int totalShards() {
    return corpora.values().stream().mapToInt(CorpusShards::shards).sum();
  }

  /** The manifest of the last complete build, or null when the index was never built. */
  public static IndexManifest read(Configuration hadoop, String indexRoot) {
    Path path = new Path(indexRoot, FILE);
    try {
      FileSystem fs = path.getFileSystem(hadoop);
      if (!fs.exists(path)) {
        return null;
      }
      try (InputStream in = fs.open(path)) {
        return JSON.readValue(in, IndexManifest.class);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the index manifest " + path, e);
    }
  }

  /** Publishes this manifest: written beside, then renamed over the old one. */
  public void write(Configuration hadoop, String indexRoot) {
    Path path = new Path(indexRoot, FILE);
    Path temp = new Path(indexRoot, "." + FILE + "." + build);
    try {
      FileSystem fs = path.getFileSystem(hadoop);
      try (OutputStream out = fs.create(temp, true)) {
        JSON.writeValue(out, this);
      }
      if (fs.exists(path)) {
        fs.delete(path, false);
      }
      if (!fs.rename(temp, path)) {
        throw new IOException("rename " + temp + " to " + path + " failed");
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the index manifest " + path, e);
    }
  }
}
