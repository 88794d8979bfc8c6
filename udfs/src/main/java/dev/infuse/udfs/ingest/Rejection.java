package dev.infuse.udfs.ingest;

/**
 * A record that could not be read, bound for the {@code quarantine} table. Nothing is lost: the raw
 * payload travels with the reason.
 *
 * @param source the file it came from
 * @param location where in the file: {@code line 12}, {@code record 5 (line 40)}, {@code
 *     patient_01.questions[3]}
 * @param payload the raw record as text (invalid UTF-8 decoded with U+FFFD replacements)
 * @param payloadBytes the exact raw bytes when the text is not valid UTF-8, else null
 * @param reason what is wrong, naming the field and the expected value
 */
public record Rejection(
    String source, String location, String payload, byte[] payloadBytes, String reason) {}
