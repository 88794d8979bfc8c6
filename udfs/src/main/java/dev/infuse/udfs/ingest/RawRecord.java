package dev.infuse.udfs.ingest;

/**
 * A record as it was found, before interpretation: enough to build a {@link Rejection} for it
 * without threading the file path and raw payload through every parsing method.
 *
 * @param source the file path
 * @param location where in the file, e.g. {@code line 12}
 * @param payload the raw record as text
 * @param payloadBytes the exact bytes when the text is not valid UTF-8, else null
 */
record RawRecord(String source, String location, String payload, byte[] payloadBytes) {
  Rejection reject(String reason) {
    return new Rejection(source, location, payload, payloadBytes, reason);
  }

  /** A part of this record (one question of a question set), found at {@code location}. */
  RawRecord part(String partLocation, String partPayload) {
    return new RawRecord(source, partLocation, partPayload, null);
  }
}
