package dev.infuse.udfs.ingest;

/**
 * Reads one benchmark format. Implementations are stateless and thread-safe.
 *
 * <p>The contract every reader keeps: it never throws on bad data. Every record in the file ends up
 * as documents and questions, or as a {@link Rejection} with a reason, so that counts reconcile.
 */
public interface BenchmarkReader {
  /** The {@code --format} name: {@code quality}, {@code gsm8k}, … */
  String format();

  /**
   * Whether a file found under an input directory belongs to this format. Lets a directory hold
   * companion files (metadata, licenses) that are not records.
   */
  boolean accepts(String fileName);

  /** Emits every item in the file to the sink. */
  void read(SourceFile file, ItemSink sink);
}
