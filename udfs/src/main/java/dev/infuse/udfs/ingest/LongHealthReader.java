package dev.infuse.udfs.ingest;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads LongHealth ({@code benchmark_v5.json}): one JSON object keyed {@code patient_01} … whose
 * values hold a patient's clinical texts and 20 five-option questions. Each patient becomes one
 * document, the texts joined in {@code text_N} order under {@code ### text_N} headers, with each
 * text's character span in {@code meta.text_offsets} so that answer locations can be mapped back.
 *
 * <p>The file is parsed patient by patient with a streaming parser, so a truncated file still
 * yields every patient before the break, plus one rejection saying where it broke. Top-level keys
 * that are not patients (a canary string) are ignored.
 */
public final class LongHealthReader implements BenchmarkReader {
  public static final String FORMAT = "longhealth";
  private static final String LICENSE = "Apache-2.0";
  private static final String NATURAL_SPLIT = "test";
  private static final String PATIENT_PREFIX = "patient_";
  private static final List<String> CANARY_FIELDS = List.of("canaray-string", "canary-string");
  private static final List<String> OPTION_FIELDS =
      List.of("answer_a", "answer_b", "answer_c", "answer_d", "answer_e");

  /**
   * Reads one patient out of the stream; the rest of the file is still to come, so it is not
   * "trailing".
   */
  private static final ObjectReader PATIENT_READER =
      Json.MAPPER.readerFor(JsonNode.class).without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private static final Pattern TEXT_ID = Pattern.compile("text_(\\d+)");

  @Override
  public String format() {
    return FORMAT;
  }

  @Override
  public boolean accepts(String fileName) {
    return fileName.toLowerCase(Locale.ROOT).endsWith(".json");
  }

  @Override
  public void read(SourceFile file, ItemSink sink) {
    byte[] content = file.content();
    StrictUtf8.Decoded decoded =
        StrictUtf8.decode(content, StrictUtf8.contentStart(content), content.length);
    if (!decoded.valid()) {
      String reason = "invalid UTF-8 at byte " + (decoded.invalidOffset() + 1) + " of the file";
      sink.reject(new Rejection(file.path(), "file", decoded.text(), content, reason));
      return;
    }
    String split = SplitNames.fromFileName(file.fileName(), NATURAL_SPLIT);
    readPatients(file, decoded.text(), split, sink);
  }

  private void readPatients(SourceFile file, String text, String split, ItemSink sink) {
    String location = "file";
    int valueStart = 0;
    try (JsonParser parser = Json.MAPPER.createParser(text)) {
      JsonToken first = parser.nextToken();
      if (first != JsonToken.START_OBJECT) {
        String got =
            first == null
                ? "an empty file"
                : first.asString() == null ? first.name() : first.asString();
        sink.reject(
            new Rejection(
                file.path(),
                location,
                text,
                null,
                "expected a JSON object keyed by patient id, got " + got));
        return;
      }
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        String key = parser.currentName();
        location = key;
        parser.nextToken();
        valueStart = (int) parser.currentTokenLocation().getCharOffset();
        if (key.startsWith(PATIENT_PREFIX)) {
          JsonNode patient = PATIENT_READER.readValue(parser);
          readPatient(key, patient, file, split, sink);
        } else {
          parser.skipChildren();
        }
        location = "after " + key;
        valueStart = (int) parser.currentLocation().getCharOffset();
      }
      if (parser.nextToken() != null) {
        sink.reject(
            new Rejection(
                file.path(),
                location,
                text.substring(valueStart),
                null,
                "malformed JSON: content after the top-level object"));
      }
    } catch (JsonProcessingException e) {
      sink.reject(
          new Rejection(file.path(), location, text.substring(valueStart), null, Json.describe(e)));
    } catch (IOException e) {
      sink.reject(
          new Rejection(
              file.path(),
              location,
              text.substring(valueStart),
              null,
              "could not read JSON: " + e.getMessage()));
    }
  }

  private void readPatient(
      String key, JsonNode patient, SourceFile file, String split, ItemSink sink) {
    RawRecord raw = new RawRecord(file.path(), key, Json.compact(patient), null);
    RecordBuffer.readAtomically(
        raw,
        sink,
        out -> {
          JsonFields fields = JsonFields.at(patient, key);
          ArrayNode questions = fields.requiredArray("questions");
          String docId = FORMAT + ":" + key;
          DocumentRecord document;
          try {
            document = document(key, fields, docId, file.fileName());
          } catch (BadRecordException e) {
            List<RawRecord> questionRaws = new ArrayList<>();
            for (int i = 0; i < questions.size(); i++) {
              questionRaws.add(raw.part(questionLocation(key, i), Json.compact(questions.get(i))));
            }
            RejectedDocuments.rejectDocument(out, raw, docId, e.reason(), questionRaws);
            return;
          }
          out.document(document);
          for (int i = 0; i < questions.size(); i++) {
            String location = questionLocation(key, i);
            try {
              out.question(question(key, questions.get(i), i, docId, split, location));
            } catch (BadRecordException e) {
              out.reject(raw.part(location, Json.compact(questions.get(i))).reject(e.reason()));
            }
          }
        });
  }

  private static String questionLocation(String key, int index) {
    return key + ".questions[" + index + "]";
  }

  private static DocumentRecord document(
      String key, JsonFields fields, String docId, String fileName) {
    String name = fields.optionalString("name");
    JsonFields texts = fields.requiredObject("texts");
    List<String> textIds = new ArrayList<>();
    texts.node().fieldNames().forEachRemaining(textIds::add);
    if (textIds.isEmpty()) {
      throw new BadRecordException("empty " + fields.path("texts"));
    }
    textIds.sort(
        Comparator.comparingLong(LongHealthReader::textNumber)
            .thenComparing(Comparator.naturalOrder()));
    StringBuilder joined = new StringBuilder();
    ObjectNode offsets = Json.MAPPER.createObjectNode();
    boolean allBlank = true;
    for (String textId : textIds) {
      String body = texts.requiredString(textId);
      allBlank &= body.isBlank();
      if (joined.length() > 0) {
        joined.append("\n\n");
      }
      joined.append("### ").append(textId).append('\n');
      int start = joined.length();
      joined.append(body);
      offsets.putArray(textId).add(start).add(joined.length());
    }
    if (allBlank) {
      throw new BadRecordException(
          "empty texts: every " + fields.path("texts") + " value is blank");
    }
    boolean evalOnly = false;
    for (String canary : CANARY_FIELDS) {
      evalOnly |= fields.has(canary);
    }
    Meta meta =
        new Meta()
            .put("name", name)
            .put("birthday", fields.optionalScalar("birthday"))
            .put("diagnosis", fields.optionalScalar("diagnosis"))
            .put("patient_id", fields.optionalId("patient_id"))
            .put("text_offsets", Json.compact(offsets))
            .put("eval_only", String.valueOf(evalOnly));
    return new DocumentRecord(
        docId, FORMAT, name, joined.toString(), fileName, LICENSE, meta.build(), key);
  }

  /**
   * The N of {@code text_N}, so that {@code text_10} sorts after {@code text_9}; other ids sort
   * last.
   */
  private static long textNumber(String textId) {
    Matcher matcher = TEXT_ID.matcher(textId);
    return matcher.matches() && matcher.group(1).length() < 18
        ? Long.parseLong(matcher.group(1))
        : Long.MAX_VALUE;
  }

  private static QuestionRecord question(
      String key, JsonNode node, int index, String docId, String split, String location) {
    JsonFields question = JsonFields.at(node, "questions[" + index + "]");
    String number = question.requiredId("No");
    String text = question.requiredText("question");
    List<String> options = new ArrayList<>();
    for (String field : OPTION_FIELDS) {
      options.add(question.requiredString(field));
    }
    String correct = question.requiredString("correct");
    int goldIndex = -1;
    for (int i = 0; i < options.size() && goldIndex < 0; i++) {
      if (options.get(i).trim().equals(correct.trim())) {
        goldIndex = i;
      }
    }
    if (goldIndex < 0) {
      throw new BadRecordException(
          question.path("correct")
              + ": got '"
              + Json.abbreviate(correct)
              + "', expected the text of one of answer_a..answer_e");
    }
    JsonNode answerLocation = question.value("answer_location");
    Meta meta =
        new Meta()
            .put("no", number)
            .put("answer_location", answerLocation == null ? null : Json.compact(answerLocation));
    return new QuestionRecord(
        FORMAT + ":" + key + ":q" + number,
        docId,
        FORMAT,
        split,
        text,
        List.copyOf(options),
        OptionLetters.letter(goldIndex),
        goldIndex,
        AnswerType.MCQ.id(),
        List.of(),
        meta.build(),
        location);
  }
}
