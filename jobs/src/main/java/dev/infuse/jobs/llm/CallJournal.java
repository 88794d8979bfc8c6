package dev.infuse.jobs.llm;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;

/**
 * An executor's append-only record of the calls it finished, one JSON line each, flushed as it
 * goes. A run that is killed leaves its journal behind; the next run folds it into {@code
 * llm_calls} before deciding what to call, so a response that came back is never paid for twice.
 *
 * <p>On HDFS and local disks each line is durable once {@link #append} returns. Object stores (S3,
 * ADLS) only publish a file when it is closed, so there the journal rolls to a new file every
 * {@code rollEvery} lines and a kill loses at most that many responses.
 */
final class CallJournal implements AutoCloseable {
  private final FileSystem fs;
  private final Path directory;
  private final String prefix;
  private final int rollEvery;
  private FSDataOutputStream out;
  private int linesInFile;
  private int files;

  CallJournal(Configuration hadoop, String directory, String prefix, int rollEvery) {
    try {
      this.directory = new Path(directory);
      this.fs = fileSystem(hadoop, this.directory);
      this.prefix = prefix;
      this.rollEvery = rollEvery;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open the call journal at " + directory, e);
    }
  }

  /**
   * The calls that succeeded in the journal files of {@code directory} matching {@code glob}, by
   * key: what an earlier attempt of a task finished. A line a kill cut short is skipped.
   */
  static Map<String, LlmCallRows.Call> succeeded(
      Configuration hadoop, String directory, String glob) {
    Map<String, LlmCallRows.Call> calls = new HashMap<>();
    try {
      FileSystem fs = fileSystem(hadoop, new Path(directory));
      FileStatus[] files = fs.globStatus(new Path(directory, glob));
      for (FileStatus file : files == null ? new FileStatus[0] : files) {
        try (BufferedReader lines =
            new BufferedReader(
                new InputStreamReader(fs.open(file.getPath()), StandardCharsets.UTF_8))) {
          for (String line = lines.readLine(); line != null; line = lines.readLine()) {
            LlmCallRows.Call call = LlmCallRows.Call.fromJsonLine(line);
            if (call != null && LlmCallRows.SUCCEEDED.equals(call.status())) {
              calls.put(call.callKey(), call);
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the call journal in " + directory, e);
    }
    return calls;
  }

  /**
   * The local checksummed file system keeps a partial checksum chunk in memory on hflush; the raw
   * one hands every line to the OS, so a killed JVM loses nothing it journaled.
   */
  private static FileSystem fileSystem(Configuration hadoop, Path directory) throws IOException {
    FileSystem fileSystem = directory.getFileSystem(hadoop);
    return fileSystem instanceof LocalFileSystem local ? local.getRawFileSystem() : fileSystem;
  }

  synchronized void append(String jsonLine) {
    try {
      if (out == null || linesInFile >= rollEvery) {
        closeFile();
        out = fs.create(new Path(directory, prefix + "-" + (files++) + ".jsonl"), true);
        linesInFile = 0;
      }
      out.write((jsonLine + "\n").getBytes(StandardCharsets.UTF_8));
      out.hflush();
      linesInFile++;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the call journal in " + directory, e);
    }
  }

  private void closeFile() throws IOException {
    if (out != null) {
      OutputStream closing = out;
      out = null;
      closing.close();
    }
  }

  @Override
  public synchronized void close() {
    try {
      closeFile();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot close the call journal in " + directory, e);
    }
  }
}
