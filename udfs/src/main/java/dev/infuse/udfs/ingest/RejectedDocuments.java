package dev.infuse.udfs.ingest;

import java.util.List;

/**
 * Rejects a document together with its questions. A question whose document is quarantined would
 * point at nothing, so it is quarantined too, with a reason that says why, rather than dropped
 * silently.
 */
final class RejectedDocuments {
  private RejectedDocuments() {}

  static void rejectDocument(
      ItemSink out, RawRecord document, String docId, String reason, List<RawRecord> questions) {
    out.reject(document.reject(reason));
    String questionReason = "document " + docId + " was quarantined: " + reason;
    questions.forEach(question -> out.reject(question.reject(questionReason)));
  }
}
