package dev.infuse.udfs.ingest;

/** Receives every item a reader finds in a file, good or bad. */
public interface ItemSink {
  void document(DocumentRecord document);

  void question(QuestionRecord question);

  void reject(Rejection rejection);

  /**
   * A record with every field empty (MEDEC's test CSV pads with such rows): a placeholder, neither
   * an item nor a bad record. Sinks that report counts count it; by default it is ignored.
   */
  default void blank(String location) {}
}
