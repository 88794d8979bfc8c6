package dev.infuse.udfs.ingest;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/** Keeps everything a reader emits, for assertions. */
final class CollectingSink implements ItemSink {
  final List<DocumentRecord> documents = new ArrayList<>();
  final List<QuestionRecord> questions = new ArrayList<>();
  final List<Rejection> rejections = new ArrayList<>();
  final List<String> blanks = new ArrayList<>();

  static CollectingSink read(BenchmarkReader reader, SourceFile file) {
    CollectingSink sink = new CollectingSink();
    reader.read(file, sink);
    return sink;
  }

  @Override
  public void document(DocumentRecord document) {
    documents.add(document);
  }

  @Override
  public void question(QuestionRecord question) {
    questions.add(question);
  }

  @Override
  public void reject(Rejection rejection) {
    rejections.add(rejection);
  }

  @Override
  public void blank(String location) {
    blanks.add(location);
  }

  List<DocumentRecord> documentsAt(String location) {
    return documents.stream().filter(d -> d.location().equals(location)).toList();
  }

  List<QuestionRecord> questionsAt(String location) {
    return questions.stream().filter(q -> q.location().equals(location)).toList();
  }

  List<Rejection> rejectionsAt(String location) {
    return rejections.stream().filter(r -> r.location().equals(location)).toList();
  }

  /** Locations that produced at least one document or question. */
  Set<String> itemLocations() {
    Set<String> locations = new TreeSet<>();
    documents.forEach(d -> locations.add(d.location()));
    questions.forEach(q -> locations.add(q.location()));
    return locations;
  }

  Set<String> rejectionLocations() {
    Set<String> locations = new TreeSet<>();
    rejections.forEach(r -> locations.add(r.location()));
    return locations;
  }

  Set<String> distinctDocIds() {
    Set<String> ids = new TreeSet<>();
    documents.forEach(d -> ids.add(d.docId()));
    return ids;
  }

  /** Items without their location, to compare what two reads produced. */
  List<Object> contentAt(String location) {
    List<Object> content = new ArrayList<>();
    documentsAt(location).forEach(d -> content.add(withoutLocation(d)));
    questionsAt(location).forEach(q -> content.add(withoutLocation(q)));
    return content;
  }

  List<Object> content() {
    List<Object> content = new ArrayList<>();
    documents.forEach(d -> content.add(withoutLocation(d)));
    questions.forEach(q -> content.add(withoutLocation(q)));
    return content;
  }

  static DocumentRecord withoutLocation(DocumentRecord d) {
    return new DocumentRecord(
        d.docId(), d.corpus(), d.title(), d.text(), d.source(), d.license(), d.meta(), null);
  }

  static QuestionRecord withoutLocation(QuestionRecord q) {
    return new QuestionRecord(
        q.questionId(),
        q.docId(),
        q.benchmark(),
        q.split(),
        q.question(),
        q.options(),
        q.gold(),
        q.goldIndex(),
        q.answerType(),
        q.subsets(),
        q.meta(),
        null);
  }
}
