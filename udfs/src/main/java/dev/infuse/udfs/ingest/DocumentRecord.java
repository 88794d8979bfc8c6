package dev.infuse.udfs.ingest;

import java.util.Map;

/**
 * One row of the {@code documents} table, as a reader produced it.
 *
 * <p>Every field is content: no field depends on where the record was read from, so the same
 * document read twice (QuALITY repeats each article on two lines) is the same row. {@code location}
 * is where it was read, used only for error messages and duplicate reports; it is not stored in the
 * table.
 *
 * @param docId stable key, {@code <corpus>:<source id>}
 * @param corpus the dataset it belongs to: {@code quality}, {@code financebench}, …
 * @param title a human title, may be null
 * @param text the document text, never empty
 * @param source upstream provenance: the record's own source field or the dataset file name
 * @param license the license of this document as the dataset states it
 * @param meta format-specific fields, as strings
 * @param location where it was read: {@code line 12}, {@code patient_01}, …
 */
public record DocumentRecord(
    String docId,
    String corpus,
    String title,
    String text,
    String source,
    String license,
    Map<String, String> meta,
    String location) {}
