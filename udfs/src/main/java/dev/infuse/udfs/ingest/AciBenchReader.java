package dev.infuse.udfs.ingest;

import java.util.Locale;

/**
 * Reads ACI-BENCH CSVs ({@code dataset, encounter_id, dialogue, note}). Each encounter yields two
 * documents, the visit dialogue and the clinical note written from it, so that note-generation
 * tasks can pair them by {@code encounter_id} and retrieval can index either.
 */
public final class AciBenchReader implements BenchmarkReader {
  public static final String FORMAT = "aci-bench";
  private static final String LICENSE = "CC BY 4.0";
  private static final String NATURAL_SPLIT = "train";

  @Override
  public String format() {
    return FORMAT;
  }

  /**
   * The encounter files; {@code *metadata*.csv} holds per-encounter demographics, not encounters.
   */
  @Override
  public boolean accepts(String fileName) {
    String name = fileName.toLowerCase(Locale.ROOT);
    return name.endsWith(".csv") && !name.contains("metadata");
  }

  @Override
  public void read(SourceFile file, ItemSink sink) {
    String split = SplitNames.fromFileName(file.fileName(), NATURAL_SPLIT);
    CsvRecords.read(
        file,
        sink,
        (row, raw, out) -> {
          String encounterId = row.text("encounter_id").trim();
          String dataset = row.get("dataset").trim();
          String dialogue = row.text("dialogue");
          String note = row.text("note");
          out.document(
              document(
                  encounterId,
                  dataset,
                  "dialogue",
                  dialogue,
                  split,
                  file.fileName(),
                  raw.location()));
          out.document(
              document(encounterId, dataset, "note", note, split, file.fileName(), raw.location()));
        });
  }

  private static DocumentRecord document(
      String encounterId,
      String dataset,
      String kind,
      String text,
      String split,
      String fileName,
      String location) {
    Meta meta =
        new Meta()
            .put("dataset", dataset)
            .put("encounter_id", encounterId)
            .put("kind", kind)
            .put("split", split);
    return new DocumentRecord(
        FORMAT + ":" + encounterId + ":" + kind,
        FORMAT,
        encounterId + " " + kind,
        text,
        fileName,
        LICENSE,
        meta.build(),
        location);
  }
}
