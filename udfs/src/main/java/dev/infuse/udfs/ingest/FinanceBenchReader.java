package dev.infuse.udfs.ingest;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Reads FinanceBench ({@code financebench_open_source.jsonl}). The PDFs are not part of the data,
 * so each evidence page becomes a document ({@code financebench:<doc_name>:p<page>}); a page that
 * is evidence for several questions is emitted each time and folded later. Questions retrieve over
 * the whole corpus, so they carry no {@code docId}; their evidence pages are listed in {@code
 * meta.evidence_doc_ids}.
 *
 * <p>Page numbers are kept as the file gives them ({@code evidence_page_num}, 0-based in the PDF),
 * in the key and in the title, so a key can be traced back to the upstream record without
 * arithmetic.
 */
public final class FinanceBenchReader implements BenchmarkReader {
  public static final String FORMAT = "financebench";
  private static final String LICENSE = "CC-BY-NC-4.0";
  private static final String NATURAL_SPLIT = "test";

  @Override
  public String format() {
    return FORMAT;
  }

  /**
   * The question files; the companion {@code financebench_document_information.jsonl} holds no
   * questions.
   */
  @Override
  public boolean accepts(String fileName) {
    String name = fileName.toLowerCase(Locale.ROOT);
    return name.endsWith(".jsonl") && !name.contains("document_information");
  }

  @Override
  public void read(SourceFile file, ItemSink sink) {
    String split = SplitNames.fromFileName(file.fileName(), NATURAL_SPLIT);
    JsonLines.read(
        file, sink, (record, raw, out) -> readQuestion(record, raw, out, split, file.fileName()));
  }

  private void readQuestion(
      ObjectNode record, RawRecord raw, ItemSink out, String split, String fileName) {
    JsonFields fields = JsonFields.of(record);
    String id = fields.requiredId("financebench_id");
    String question = fields.requiredText("question");
    String answer = fields.requiredText("answer");
    String company = fields.optionalString("company");
    String questionType = fields.optionalString("question_type");
    ArrayNode evidence = fields.requiredArray("evidence");
    List<String> evidenceDocIds = new ArrayList<>();
    ArrayNode evidenceTexts = Json.MAPPER.createArrayNode();
    for (int i = 0; i < evidence.size(); i++) {
      JsonFields item = JsonFields.at(evidence.get(i), "evidence[" + i + "]");
      DocumentRecord page = page(item, company, fileName, raw.location());
      out.document(page);
      evidenceDocIds.add(page.docId());
      evidenceTexts.add(item.optionalString("evidence_text"));
    }
    Meta meta =
        new Meta()
            .put("company", company)
            .put("doc_name", fields.optionalString("doc_name"))
            .put("question_type", questionType)
            .put("question_reasoning", fields.optionalString("question_reasoning"))
            .put("domain_question_num", fields.optionalString("domain_question_num"))
            .put("justification", fields.optionalString("justification"))
            .put("evidence_doc_ids", String.join(",", evidenceDocIds))
            .put("evidence_texts", Json.compact(evidenceTexts));
    out.question(
        new QuestionRecord(
            FORMAT + ":" + id,
            null,
            FORMAT,
            split,
            question,
            null,
            answer,
            null,
            AnswerType.FREE.id(),
            questionType == null || questionType.isBlank() ? List.of() : List.of(questionType),
            meta.build(),
            raw.location()));
  }

  private static DocumentRecord page(
      JsonFields item, String company, String fileName, String location) {
    String docName = item.requiredId("doc_name");
    int page = item.requiredInt("evidence_page_num");
    if (page < 0) {
      throw item.wrong("evidence_page_num", item.value("evidence_page_num"), "an integer >= 0");
    }
    String fullPage = item.optionalString("evidence_text_full_page");
    String excerpt = item.optionalString("evidence_text");
    String text = fullPage != null && !fullPage.isBlank() ? fullPage : excerpt;
    if (text == null || text.isBlank()) {
      throw new BadRecordException(
          item.path("evidence_text_full_page") + ": empty, and no evidence_text to fall back on");
    }
    Meta meta =
        new Meta()
            .put("company", company)
            .put("doc_name", docName)
            .put("page", String.valueOf(page));
    return new DocumentRecord(
        FORMAT + ":" + docName + ":p" + page,
        FORMAT,
        docName + " page " + page,
        text,
        fileName,
        LICENSE,
        meta.build(),
        location);
  }
}
