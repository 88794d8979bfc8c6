package dev.infuse.jobs.shards;

import java.io.IOException;
import java.io.OutputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;

/**
 * The output directory of a shard build, local or on any Hadoop file system: {@code info.json},
 * {@code stats.json} and {@code COMPLETED} at the top, and one subdirectory per format that holds
 * nothing but shards, so that {@code spark.read.parquet(dir)}, pyarrow and HuggingFace {@code
 * datasets} can read a format's directory as a whole. Shard writers need a local file (they stream,
 * hash and rename atomically): on a local or FUSE-mounted output they write in place; on a remote
 * one (s3://, abfss://, dbfs:/) into a local temporary directory, and {@link #publish} uploads the
 * finished file.
 */
final class ShardOutput implements Serializable {
  private static final long serialVersionUID = 1L;
  static final String COMPLETED = "COMPLETED";

  private final String uri;
  private final boolean local;

  ShardOutput(String uri) {
    this.uri = uri.endsWith("/") ? uri.substring(0, uri.length() - 1) : uri;
    String scheme = URI.create(this.uri.replace('\\', '/')).getScheme();
    this.local = scheme == null || scheme.equals("file");
  }

  String uri() {
    return uri;
  }

  String formatUri(ShardFormat format) {
    return uri + "/" + format.id();
  }

  /**
   * A shard's file name: {@code shard-00002-of-00008.<extension>}; Megatron's prefix has no
   * extension.
   */
  static String shardName(int shard, int shards, String extension) {
    return String.format(Locale.ROOT, "shard-%05d-of-%05d", shard, shards)
        + (extension.isEmpty() ? "" : "." + extension);
  }

  /** Where a writer on this machine writes {@code name} of {@code format}. */
  Path localFile(ShardFormat format, String name, Path scratch) {
    return local
        ? localPath(formatUri(format)).resolve(name)
        : scratch.resolve(format.id()).resolve(name);
  }

  /**
   * Makes a written file visible at its place in the output; a no-op for a local output. {@code
   * conf} is the session's Hadoop configuration as shipped to the task: a fresh {@code new
   * Configuration()} on an executor lacks the session's {@code spark.hadoop.*} settings (the s3a
   * endpoint, credentials provider, path style), so the upload would go to the wrong endpoint or
   * with no credentials.
   */
  void publish(ShardFormat format, Path written, Configuration conf) {
    if (local) {
      return;
    }
    try {
      org.apache.hadoop.fs.Path target =
          new org.apache.hadoop.fs.Path(formatUri(format), written.getFileName().toString());
      FileSystem fs = target.getFileSystem(conf);
      fs.copyFromLocalFile(true, true, new org.apache.hadoop.fs.Path(written.toUri()), target);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot upload " + written + " to " + formatUri(format), e);
    }
  }

  /**
   * Removes what a previous build left: the COMPLETED marker first (so a half-cleaned output never
   * looks finished), the summaries, then the shard files of {@code formats}. Other files are left
   * alone: the output may be a directory the user keeps other things in.
   */
  void clear(List<ShardFormat> formats, Configuration conf) {
    try {
      org.apache.hadoop.fs.Path root = new org.apache.hadoop.fs.Path(uri);
      FileSystem fs = root.getFileSystem(conf);
      for (String name : List.of(COMPLETED, "info.json", "stats.json")) {
        fs.delete(new org.apache.hadoop.fs.Path(root, name), false);
      }
      for (ShardFormat format : formats) {
        org.apache.hadoop.fs.Path dir = new org.apache.hadoop.fs.Path(formatUri(format));
        if (!fs.exists(dir)) {
          fs.mkdirs(dir);
          continue;
        }
        for (FileStatus file : fs.listStatus(dir)) {
          if (file.getPath().getName().startsWith("shard-")) {
            fs.delete(file.getPath(), false);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot clear " + uri, e);
    }
  }

  /** Writes a small text file at the top of the output, whole or not at all. */
  void writeText(String name, String text, Configuration conf) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    try {
      if (local) {
        // java.nio rather than Hadoop's local file system, which would add a .crc file beside it.
        Path target = localPath(uri).resolve(name);
        Path temp = target.resolveSibling("." + name + ".tmp");
        Files.write(temp, bytes);
        Files.move(
            temp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return;
      }
      org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(uri, name);
      try (OutputStream out = path.getFileSystem(conf).create(path, true)) {
        out.write(bytes);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + uri + "/" + name, e);
    }
  }

  /** A small text file at the top of the output, or null when there is none. */
  String readText(String name, Configuration conf) {
    try {
      org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(uri, name);
      FileSystem fs = path.getFileSystem(conf);
      if (!fs.exists(path)) {
        return null;
      }
      try (var in = fs.open(path)) {
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + uri + "/" + name, e);
    }
  }

  /** A scratch directory on this machine for a remote output; null for a local one. */
  Path scratch() {
    if (local) {
      return null;
    }
    try {
      return Files.createTempDirectory("infuse-shards-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a local scratch directory for shards", e);
    }
  }

  private static Path localPath(String uri) {
    URI parsed = URI.create(uri.replace('\\', '/'));
    return parsed.getScheme() == null ? Path.of(uri) : Path.of(parsed);
  }
}
