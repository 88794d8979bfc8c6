package dev.infuse.udfs.ingest;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.infuse.udfs.common.Keys;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Reads GSM8K JSON Lines ({@code question}, {@code answer}). The gold number is what follows the
 * last {@code ####} marker of the worked solution, without thousands separators. GSM8K has no ids,
 * so a question is keyed by the hash of its text within its split.
 */
public final class Gsm8kReader implements BenchmarkReader {
  public static final String FORMAT = "gsm8k";
  private static final String NATURAL_SPLIT = "train";
  private static final String FINAL_ANSWER_MARKER = "####";
  private static final Pattern NUMBER = Pattern.compile("-?\\d+(\\.\\d+)?");

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
    String split = SplitNames.fromFileName(file.fileName(), NATURAL_SPLIT);
    JsonLines.read(
        file, sink, (record, raw, out) -> out.question(question(record, split, raw.location())));
  }

  private static QuestionRecord question(ObjectNode record, String split, String location) {
    JsonFields fields = JsonFields.of(record);
    String question = fields.requiredText("question");
    String solution = fields.requiredText("answer");
    return new QuestionRecord(
        FORMAT + ":" + split + ":" + Keys.shortHash(question),
        null,
        FORMAT,
        split,
        question,
        null,
        finalAnswer(solution),
        null,
        AnswerType.NUMERIC.id(),
        List.of(),
        new Meta().put("solution", solution).build(),
        location);
  }

  private static String finalAnswer(String solution) {
    int marker = solution.lastIndexOf(FINAL_ANSWER_MARKER);
    if (marker < 0) {
      throw new BadRecordException(
          "answer: no '" + FINAL_ANSWER_MARKER + "' line with the final answer");
    }
    String raw = solution.substring(marker + FINAL_ANSWER_MARKER.length()).trim();
    String number = raw.replace(",", "");
    if (!NUMBER.matcher(number).matches()) {
      throw new BadRecordException(
          "answer: final answer '"
              + Json.abbreviate(raw)
              + "' after '"
              + FINAL_ANSWER_MARKER
              + "' is not a number, expected digits like 1,234 or -5.5");
    }
    return number;
  }
}
