package dev.infuse.udfs.ingest;

/**
 * One input file, whole. Readers take bytes rather than text so that they can find invalid UTF-8
 * themselves and quarantine just the records it touches.
 *
 * @param path the full path or URI it was read from
 * @param content the file's bytes
 */
public record SourceFile(String path, byte[] content) {
  /** The last path segment: {@code quality_dev_sample.jsonl}. */
  public String fileName() {
    int slash = path.lastIndexOf('/');
    return slash < 0 ? path : path.substring(slash + 1);
  }
}
