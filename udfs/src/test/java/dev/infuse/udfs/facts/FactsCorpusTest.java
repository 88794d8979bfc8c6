package dev.infuse.udfs.facts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.infuse.udfs.facts.FactsCorpus.Attribute;
import dev.infuse.udfs.facts.FactsCorpus.Person;
import dev.infuse.udfs.facts.FactsCorpus.Question;
import dev.infuse.udfs.ingest.DocumentRecord;
import dev.infuse.udfs.ingest.ItemSink;
import dev.infuse.udfs.ingest.QualityReader;
import dev.infuse.udfs.ingest.QuestionRecord;
import dev.infuse.udfs.ingest.Rejection;
import dev.infuse.udfs.ingest.SourceFile;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class FactsCorpusTest {
  private static final Pattern DATE = Pattern.compile("[A-Z][a-z]+ \\d{1,2}, 19[5-9]\\d");

  @Test
  void sameSeedGivesTheSameBytesAndAnotherSeedOtherPeople() {
    List<String> a = FactsCorpus.generate(200, 7).jsonLines();
    assertThat(FactsCorpus.generate(200, 7).jsonLines()).isEqualTo(a);
    assertThat(FactsCorpus.generate(200, 8).jsonLines()).isNotEqualTo(a);
    // Person i does not depend on how many people there are (only the split does).
    assertThat(FactsCorpus.generate(10, 7).people())
        .extracting(Person::biography, Person::questions)
        .isEqualTo(
            FactsCorpus.generate(200, 7).people().subList(0, 10).stream()
                .map(p -> org.assertj.core.groups.Tuple.tuple(p.biography(), p.questions()))
                .toList());
  }

  @Test
  void everyPersonHasADistinctNameSixFactsABiographyStatingThemAndSixQuestions() {
    FactsCorpus corpus = FactsCorpus.generate(200, 0);
    Set<String> names = new HashSet<>();
    Set<String> biographies = new HashSet<>();
    for (Person person : corpus.people()) {
      assertThat(names.add(person.name())).as(person.name()).isTrue();
      biographies.add(person.biography());
      assertThat(person.values()).containsOnlyKeys(Attribute.values());
      for (String value : person.values().values()) {
        assertThat(person.biography()).contains(value);
      }
      assertThat(person.biography()).startsWith(person.name());
      assertThat(person.questions()).hasSize(Attribute.values().length);
    }
    assertThat(biographies).hasSize(200);
  }

  @Test
  void biographiesUseSeveralPhrasingsOfEachAttribute() {
    FactsCorpus corpus = FactsCorpus.generate(200, 0);
    assertThat(
            corpus.people().stream()
                .map(p -> p.biography().substring(p.name().length(), p.name().length() + 12))
                .distinct()
                .count())
        .as("first sentences' wording after the name")
        .isEqualTo(Attribute.BIRTH_DATE.phrasings());
  }

  @Test
  void distractorsAreDistinctValuesOfTheSameAttribute() {
    FactsCorpus corpus = FactsCorpus.generate(200, 3);
    Set<Integer> goldPositions = new HashSet<>();
    for (Person person : corpus.people()) {
      for (Question q : person.questions()) {
        assertThat(q.options()).hasSize(4).doesNotHaveDuplicates();
        assertThat(q.gold()).isEqualTo(person.values().get(q.attribute()));
        assertThat(q.text()).contains(person.name());
        goldPositions.add(q.goldIndex());
        for (String option : q.options()) {
          if (q.attribute() == Attribute.BIRTH_DATE) {
            assertThat(option).matches(DATE);
          } else {
            assertThat(q.attribute().pool()).contains(option);
          }
        }
      }
    }
    assertThat(goldPositions).containsExactlyInAnyOrder(0, 1, 2, 3);
  }

  @Test
  void theFirstHalfIsTrainedTheRestHeldOutAndTheQualityReaderKeepsTheSubset() {
    FactsCorpus corpus = FactsCorpus.generate(9, 0);
    assertThat(corpus.people())
        .extracting(Person::trained)
        .containsExactly(true, true, true, true, false, false, false, false, false);
    assertThat(corpus.people().get(0).id()).isEqualTo("facts-0000");

    byte[] bytes = (String.join("\n", corpus.jsonLines()) + "\n").getBytes(StandardCharsets.UTF_8);
    List<DocumentRecord> documents = new ArrayList<>();
    List<QuestionRecord> questions = new ArrayList<>();
    List<Rejection> rejections = new ArrayList<>();
    new QualityReader()
        .read(
            new SourceFile("d/" + FactsCorpus.FILE_NAME, bytes),
            new ItemSink() {
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
            });
    assertThat(rejections).isEmpty();
    assertThat(documents).hasSize(9);
    assertThat(questions).hasSize(54);
    QuestionRecord first = questions.get(0);
    assertThat(first.questionId()).isEqualTo("quality:facts-0000_birth_date");
    assertThat(first.split()).isEqualTo("dev");
    assertThat(first.subsets()).containsExactly(FactsCorpus.TRAINED);
    assertThat(questions.get(53).subsets()).containsExactly(FactsCorpus.HELD_OUT);
    Question q = corpus.people().get(0).questions().get(0);
    assertThat(first.options()).isEqualTo(q.options());
    assertThat(first.goldIndex()).isEqualTo(q.goldIndex());
    assertThat(documents.get(0).license()).isEqualTo(FactsCorpus.LICENSE);
  }

  @Test
  void peopleOutOfRangeNameTheOptionAndTheRange() {
    assertThatThrownBy(() -> FactsCorpus.generate(1, 0))
        .hasMessage("people: got 1, expected 2..1024 (one of each name at most)");
    assertThatThrownBy(() -> FactsCorpus.generate(FactsCorpus.MAX_PEOPLE + 1, 0))
        .hasMessageContaining("got 1025");
    assertThat(FactsCorpus.generate(FactsCorpus.MAX_PEOPLE, 0).people()).hasSize(1024);
  }
}
