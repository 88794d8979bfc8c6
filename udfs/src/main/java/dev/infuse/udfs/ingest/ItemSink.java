package dev.infuse.udfs.ingest;

/** Receives every item a reader finds in a file, good or bad. */
public interface ItemSink {
  void document(DocumentRecord document);

  void question(QuestionRecord question);

  void reject(Rejection rejection);
}
