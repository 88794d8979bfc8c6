package dev.infuse.udfs.ingest;

import java.util.Locale;
import java.util.Set;

/**
 * Reads MEDEC-MS CSVs: one clinical note per row, with or without one injected medical error. Notes
 * are documents ({@code medec:<Text ID>}); the error annotation travels in {@code meta} under
 * snake_case column names, for the error-detection tasks built on top.
 */
public final class MedecReader implements BenchmarkReader {
  public static final String FORMAT = "medec";
  private static final String LICENSE = "CC BY 4.0";
  private static final String NATURAL_SPLIT = "test";
  private static final String ID_COLUMN = "Text ID";
  private static final String TEXT_COLUMN = "Text";
  private static final String FLAG_COLUMN = "Error Flag";
  private static final Set<String> FLAGS = Set.of("0", "1");

  @Override
  public String format() {
    return FORMAT;
  }

  @Override
  public boolean accepts(String fileName) {
    return fileName.toLowerCase(Locale.ROOT).endsWith(".csv");
  }

  @Override
  public void read(SourceFile file, ItemSink sink) {
    String split = SplitNames.fromFileName(file.fileName(), NATURAL_SPLIT);
    CsvRecords.read(
        file,
        sink,
        (row, raw, out) -> {
          String textId = row.text(ID_COLUMN).trim();
          String text = row.text(TEXT_COLUMN);
          String flag = row.get(FLAG_COLUMN).trim();
          if (!FLAGS.contains(flag)) {
            throw new BadRecordException(
                FLAG_COLUMN + ": got '" + Json.abbreviate(flag) + "', expected 0 or 1");
          }
          Meta meta = new Meta().put("split", split);
          for (String column : row.columns()) {
            if (!column.equals(ID_COLUMN) && !column.equals(TEXT_COLUMN)) {
              meta.put(snakeCase(column), column.equals(FLAG_COLUMN) ? flag : row.get(column));
            }
          }
          out.document(
              new DocumentRecord(
                  FORMAT + ":" + textId,
                  FORMAT,
                  textId,
                  text,
                  file.fileName(),
                  LICENSE,
                  meta.build(),
                  raw.location()));
        });
  }

  /** {@code Error Sentence ID} becomes {@code error_sentence_id}. */
  static String snakeCase(String column) {
    return column.trim().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "_");
  }
}
