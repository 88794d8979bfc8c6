package dev.infuse.jobs.io;

import dev.infuse.jobs.config.ConfigException;
import dev.infuse.udfs.text.Tokenizers;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.SparkSession;

/** Reads the tokenizer.json a config option names, on the driver, to broadcast to the executors. */
public final class TokenizerFiles {
  private TokenizerFiles() {}

  /**
   * The bytes of {@code spec}: {@code default} (the jar's all-MiniLM-L6-v2 tokenizer), a
   * tokenizer.json, or a directory holding one, on any Hadoop file system. Checked here, so a bad
   * file is a config error naming {@code option} before any task runs.
   */
  public static byte[] read(SparkSession spark, String spec, String option) {
    if (Tokenizers.DEFAULT_SPEC.equals(spec)) {
      return Tokenizers.defaultTokenizerJson();
    }
    try {
      Path path = new Path(spec);
      FileSystem fs = path.getFileSystem(spark.sparkContext().hadoopConfiguration());
      if (fs.exists(path) && fs.getFileStatus(path).isDirectory()) {
        path = new Path(path, "tokenizer.json");
      }
      if (!fs.exists(path)) {
        throw new ConfigException(
            List.of(
                option
                    + ": got "
                    + spec
                    + ", expected 'default' or the path of an"
                    + " existing HuggingFace tokenizer.json"));
      }
      try (InputStream in = fs.open(path)) {
        byte[] bytes = in.readAllBytes();
        try {
          Tokenizers.fromBytes(bytes);
        } catch (RuntimeException e) {
          throw new ConfigException(
              List.of(
                  option
                      + ": got "
                      + spec
                      + ", which is not a HuggingFace tokenizer.json ("
                      + e.getMessage()
                      + ")"));
        }
        return bytes;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read tokenizer " + spec, e);
    }
  }
}
