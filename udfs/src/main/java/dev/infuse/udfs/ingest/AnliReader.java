package dev.infuse.udfs.ingest;

import dev.infuse.udfs.common.Keys;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Reads the ANLI error-analysis CSVs ({@code ANLI_analysis_r<round>_<split>.csv}). Each premise
 * becomes a document keyed by the hash of its text (premises have no id of their own and repeat
 * across rows); each row is a three-way label question keyed by its ANLI {@code uid}. The round
 * comes from the file name.
 */
public final class AnliReader implements BenchmarkReader {
  public static final String FORMAT = "anli";
  private static final String LICENSE = "CC BY-NC 4.0";

  /**
   * The dataset, not the file: a premise recurs across round files, and must be the same document
   * whichever file it was read from.
   */
  private static final String SOURCE = "facebookresearch/anli (ANLIzing ANLI annotations)";

  private static final String NATURAL_SPLIT = "dev";
  private static final List<String> LABELS = List.of("entailment", "neutral", "contradiction");
  private static final Map<String, Integer> LABEL_CODES = Map.of("e", 0, "n", 1, "c", 2);
  private static final List<String> META_COLUMNS =
      List.of("reason", "tags", "A1Code", "adversary_pred", "eid");

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
    List<String> subsets = SplitNames.round(file.fileName()).map(List::of).orElse(List.of());
    CsvRecords.read(
        file,
        sink,
        (row, raw, out) -> {
          String context = row.text("context");
          String statement = row.text("statement");
          String uid = row.text("uid").trim();
          String code = row.get("gold_label").trim();
          Integer goldIndex = LABEL_CODES.get(code);
          if (goldIndex == null) {
            throw new BadRecordException(
                "gold_label: got '" + Json.abbreviate(code) + "', expected one of e, n, c");
          }
          String docId = FORMAT + ":ctx:" + Keys.shortHash(context);
          out.document(
              new DocumentRecord(
                  docId,
                  FORMAT,
                  null,
                  context,
                  SOURCE,
                  LICENSE,
                  new Meta().build(),
                  raw.location()));
          Meta meta = new Meta();
          META_COLUMNS.forEach(column -> meta.put(column, row.optional(column)));
          out.question(
              new QuestionRecord(
                  FORMAT + ":" + uid,
                  docId,
                  FORMAT,
                  split,
                  statement,
                  LABELS,
                  LABELS.get(goldIndex),
                  goldIndex,
                  AnswerType.LABEL.id(),
                  subsets,
                  meta.build(),
                  raw.location()));
        });
  }
}
