package dev.infuse.udfs.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Reads QuALITY v1.0.1 JSON Lines: one line is one writer's question set for an article, so every
 * article comes out as a document once per line (equal items; duplicates are folded later) plus its
 * questions.
 *
 * <p>Accepts the official record and reduced copies of it: ids may be strings or integers, and
 * {@code question_unique_id}, {@code difficult} and the annotator fields may be absent. A question
 * without its own id is keyed {@code <set_unique_id>_<1-based position>}, which is how the official
 * ids are built. A question may name scoring subsets in an optional {@code subsets} list of strings
 * (not part of QuALITY; generated sets such as {@code make-facts} use it). A bad question costs
 * only itself; an empty article quarantines the document and its questions.
 */
public final class QualityReader implements BenchmarkReader {
  public static final String FORMAT = "quality";
  private static final String NATURAL_SPLIT = "dev";
  private static final java.util.regex.Pattern SUBSET_NAME =
      java.util.regex.Pattern.compile("[A-Za-z0-9_-]+");

  @Override
  public String format() {
    return FORMAT;
  }

  /**
   * JSON Lines files, and the official extensionless {@code QuALITY.v1.0.1.htmlstripped.<split>}
   * files.
   */
  @Override
  public boolean accepts(String fileName) {
    String name = fileName.toLowerCase(Locale.ROOT);
    boolean officialName =
        name.contains("htmlstripped")
            && (name.endsWith(".train") || name.endsWith(".dev") || name.endsWith(".test"));
    return name.endsWith(".jsonl") || officialName;
  }

  @Override
  public void read(SourceFile file, ItemSink sink) {
    String split = SplitNames.fromFileName(file.fileName(), NATURAL_SPLIT);
    JsonLines.read(
        file, sink, (record, raw, out) -> readSet(record, raw, out, split, file.fileName()));
  }

  private void readSet(
      ObjectNode record, RawRecord raw, ItemSink out, String split, String fileName) {
    JsonFields set = JsonFields.of(record);
    String docId = FORMAT + ":" + set.requiredId("article_id");
    ArrayNode questions = set.requiredArray("questions");
    DocumentRecord document;
    try {
      document = document(set, docId, fileName, raw.location());
    } catch (BadRecordException e) {
      List<RawRecord> questionRaws = new ArrayList<>();
      questions.forEach(
          question -> questionRaws.add(raw.part(raw.location(), Json.compact(question))));
      RejectedDocuments.rejectDocument(out, raw, docId, e.reason(), questionRaws);
      return;
    }
    out.document(document);
    for (int i = 0; i < questions.size(); i++) {
      JsonNode question = questions.get(i);
      try {
        out.question(question(set, question, i, docId, split, raw.location()));
      } catch (BadRecordException e) {
        out.reject(raw.part(raw.location(), Json.compact(question)).reject(e.reason()));
      }
    }
  }

  private DocumentRecord document(JsonFields set, String docId, String fileName, String location) {
    String article = set.optionalString("article");
    if (article == null || article.isBlank()) {
      throw new BadRecordException("empty article");
    }
    String source = set.optionalString("source");
    Meta meta =
        new Meta()
            .put("author", set.optionalScalar("author"))
            .put("topic", set.optionalScalar("topic"))
            .put("url", set.optionalScalar("url"))
            .put("year", set.optionalScalar("year"));
    return new DocumentRecord(
        docId,
        FORMAT,
        set.optionalString("title"),
        article,
        source == null || source.isBlank() ? fileName : source,
        set.optionalString("license"),
        meta.build(),
        location);
  }

  private QuestionRecord question(
      JsonFields set, JsonNode node, int index, String docId, String split, String location) {
    JsonFields question = JsonFields.at(node, "questions[" + index + "]");
    String text = question.requiredText("question");
    List<String> options = question.requiredStringList("options");
    OptionLetters.checkCount(question.path("options"), options.size());
    Integer goldIndex = goldIndex(question, options.size(), split);
    Integer difficult = question.optionalInt("difficult");
    if (difficult != null && difficult != 0 && difficult != 1) {
      throw question.wrong("difficult", question.value("difficult"), "0 or 1");
    }
    ArrayNode validation = question.optionalArray("validation");
    ArrayNode speedValidation = question.optionalArray("speed_validation");
    Integer writerLabel = question.optionalInt("writer_label");
    Meta meta =
        new Meta()
            .put("set_unique_id", set.optionalId("set_unique_id"))
            .put("writer_id", set.optionalId("writer_id"))
            .put("batch_num", set.optionalId("batch_num"))
            .put("writer_label", writerLabel == null ? null : writerLabel.toString())
            .put("difficult", difficult == null ? null : difficult.toString())
            .put("n_validations", validation == null ? null : String.valueOf(validation.size()))
            .put("validation", validation == null ? null : Json.compact(validation))
            .put(
                "n_speed_validations",
                speedValidation == null ? null : String.valueOf(speedValidation.size()))
            .put(
                "speed_validation", speedValidation == null ? null : Json.compact(speedValidation));
    return new QuestionRecord(
        FORMAT + ":" + questionId(set, question, index),
        docId,
        FORMAT,
        split,
        text,
        options,
        goldIndex == null ? null : OptionLetters.letter(goldIndex),
        goldIndex,
        AnswerType.MCQ.id(),
        subsets(question, difficult),
        meta.build(),
        location);
  }

  /**
   * {@code difficult} when the question is marked so, then the optional {@code subsets}: scoring
   * subsets a generated set names for each question (the facts corpus of {@code make-facts} marks
   * its questions {@code trained} or {@code held_out}), each a non-empty name of letters, digits,
   * {@code _} or {@code -}, at most once.
   */
  private static List<String> subsets(JsonFields question, Integer difficult) {
    List<String> subsets = new ArrayList<>();
    if (difficult != null && difficult == 1) {
      subsets.add("difficult");
    }
    ArrayNode named = question.optionalArray("subsets");
    if (named == null) {
      return List.copyOf(subsets);
    }
    for (int i = 0; i < named.size(); i++) {
      JsonNode item = named.get(i);
      String path = question.path("subsets") + "[" + i + "]";
      if (!item.isTextual() || !SUBSET_NAME.matcher(item.textValue()).matches()) {
        throw new BadRecordException(
            path
                + ": got "
                + Json.describe(item)
                + ", expected a subset name of letters, digits, _ or -");
      }
      if (item.textValue().equals("all") || subsets.contains(item.textValue())) {
        throw new BadRecordException(
            path
                + ": got "
                + item.textValue()
                + (item.textValue().equals("all")
                    ? ", expected a subset other than all (every question is in all)"
                    : " a second time, expected each subset once"));
      }
      subsets.add(item.textValue());
    }
    return List.copyOf(subsets);
  }

  private static String questionId(JsonFields set, JsonFields question, int index) {
    String own = question.optionalId("question_unique_id");
    if (own != null) {
      return own;
    }
    String setId = set.optionalId("set_unique_id");
    if (setId == null) {
      throw new BadRecordException(
          "missing field '"
              + question.path("question_unique_id")
              + "' and no set_unique_id to derive it from");
    }
    return setId + "_" + (index + 1);
  }

  /** 0-based gold index from the 1-based {@code gold_label}; test sets have no labels. */
  private static Integer goldIndex(JsonFields question, int optionCount, String split) {
    JsonNode label = question.value("gold_label");
    if (label == null) {
      if ("test".equals(split)) {
        return null;
      }
      throw question.missing("gold_label");
    }
    if (!label.isIntegralNumber()
        || !label.canConvertToInt()
        || label.intValue() < 1
        || label.intValue() > optionCount) {
      throw question.wrong("gold_label", label, "an integer in 1.." + optionCount);
    }
    return label.intValue() - 1;
  }
}
