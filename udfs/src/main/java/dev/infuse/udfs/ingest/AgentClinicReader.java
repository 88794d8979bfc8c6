package dev.infuse.udfs.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.infuse.udfs.common.Keys;
import java.util.Locale;

/**
 * Reads AgentClinic-MedQA JSON Lines: one structured OSCE case ({@code {"OSCE_Examination":
 * {...}}}) per line, which becomes a document with the case rendered as text and the tree kept as
 * JSON in {@code meta.osce_json}. Cases have no ids; the key is the hash of the line's canonical
 * JSON (keys sorted, compact), so upstream's exact duplicate cases get the same key and fold later.
 */
public final class AgentClinicReader implements BenchmarkReader {
  public static final String FORMAT = "agentclinic";
  private static final String LICENSE = "MIT";
  private static final String CASE_FIELD = "OSCE_Examination";

  @Override
  public String format() {
    return FORMAT;
  }

  @Override
  public boolean accepts(String fileName) {
    return fileName.toLowerCase(Locale.ROOT).endsWith(".jsonl");
  }

  @Override
  public void read(SourceFile file, ItemSink sink) {
    JsonLines.read(
        file,
        sink,
        (record, raw, out) -> out.document(document(record, file.fileName(), raw.location())));
  }

  private static DocumentRecord document(ObjectNode record, String fileName, String location) {
    JsonFields osce = JsonFields.of(record).requiredObject(CASE_FIELD);
    if (osce.node().isEmpty()) {
      throw new BadRecordException("empty " + CASE_FIELD);
    }
    String diagnosis = textOrNull(osce.value("Correct_Diagnosis"));
    String objective = textOrNull(osce.value("Objective_for_Doctor"));
    Meta meta =
        new Meta().put("correct_diagnosis", diagnosis).put("osce_json", Json.compact(osce.node()));
    return new DocumentRecord(
        FORMAT + ":" + Keys.shortHash(Json.canonical(record)),
        FORMAT,
        objective != null ? objective : diagnosis,
        OsceText.render(record),
        fileName,
        LICENSE,
        meta.build(),
        location);
  }

  private static String textOrNull(JsonNode node) {
    return node != null && node.isTextual() && !node.textValue().isBlank()
        ? node.textValue()
        : null;
  }
}
