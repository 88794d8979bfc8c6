package dev.infuse.udfs.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.infuse.udfs.common.Keys;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads MedQA-USMLE JSON Lines ({@code question}, {@code options {A..}}, {@code answer}, {@code
 * answer_idx}). MedQA has no ids, so a question is keyed by the hash of its text and its options in
 * letter order (the same vignette with other options is another question). The gold letter is
 * checked against the answer text, which catches rows whose two gold fields disagree.
 */
public final class MedQaReader implements BenchmarkReader {
  public static final String FORMAT = "medqa";
  private static final String NATURAL_SPLIT = "test";

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
    List<String> letters = new ArrayList<>();
    List<String> options = new ArrayList<>();
    optionsByLetter(fields)
        .forEach(
            (letter, text) -> {
              letters.add(letter);
              options.add(text);
            });
    String goldLetter = fields.requiredString("answer_idx").trim();
    int goldIndex = letters.indexOf(goldLetter);
    if (goldIndex < 0) {
      throw fields.wrong(
          "answer_idx", fields.value("answer_idx"), "one of " + String.join(", ", letters));
    }
    String answer = fields.requiredString("answer");
    if (!options.get(goldIndex).trim().equals(answer.trim())) {
      throw fields.wrong(
          "answer",
          fields.value("answer"),
          "the text of option "
              + goldLetter
              + ": '"
              + Json.abbreviate(options.get(goldIndex))
              + "'");
    }
    String metaInfo = fields.optionalString("meta_info");
    ArrayNode phrases = fields.optionalArray("metamap_phrases");
    List<String> hashed = new ArrayList<>();
    hashed.add(question);
    hashed.addAll(options);
    Meta meta =
        new Meta()
            .put("meta_info", metaInfo)
            .put("metamap_phrases", phrases == null ? null : Json.compact(phrases));
    return new QuestionRecord(
        FORMAT + ":" + Keys.shortHash(hashed.toArray(String[]::new)),
        null,
        FORMAT,
        split,
        question,
        List.copyOf(options),
        goldLetter,
        goldIndex,
        AnswerType.MCQ.id(),
        metaInfo == null || metaInfo.isBlank() ? List.of() : List.of(metaInfo),
        meta.build(),
        location);
  }

  /** The options in letter order; the letters must run A, B, C, … without gaps. */
  private static Map<String, String> optionsByLetter(JsonFields fields) {
    JsonFields options = fields.requiredObject("options");
    Map<String, String> byLetter = new TreeMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = options.node().fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> option = it.next();
      byLetter.put(option.getKey(), options.requiredString(option.getKey()));
    }
    OptionLetters.checkCount("options", byLetter.size());
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < byLetter.size(); i++) {
      expected.add(OptionLetters.letter(i));
    }
    if (!expected.equals(List.copyOf(byLetter.keySet()))) {
      throw new BadRecordException(
          "options: got keys " + byLetter.keySet() + ", expected " + expected);
    }
    return byLetter;
  }
}
