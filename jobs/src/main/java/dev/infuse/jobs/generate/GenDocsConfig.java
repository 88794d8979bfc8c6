package dev.infuse.jobs.generate;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.infuse.jobs.config.ConfigSection;
import dev.infuse.udfs.common.EnumNames;
import dev.infuse.udfs.common.Names;
import dev.infuse.udfs.generate.GenerationTask;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code gen_docs} section.
 *
 * @param kinds which kinds to generate: rephrase, entity, focal
 * @param rephraseStyles WRAP-like styles: simple, encyclopedic, terse, qa_dialogue
 * @param rephrasesPerStyle samples per document and style (different seeds)
 * @param maxEntities entities extracted per document
 * @param entitySingles documents about one entity, per source document (the most frequent first)
 * @param entityPairs documents about a pair of entities, per source document (seeded sample)
 * @param entityTriples documents about three entities, per source document (seeded sample)
 * @param questionsPerFocal questions each focal rewrite is conditioned on
 * @param focalPerDoc focal rewrites per source document
 * @param maxDocs the most source documents, in a stable order; 0 for all
 * @param corpus only this corpus; null for all
 */
public record GenDocsConfig(
    List<Kind> kinds,
    List<String> rephraseStyles,
    int rephrasesPerStyle,
    int maxEntities,
    int entitySingles,
    int entityPairs,
    int entityTriples,
    int questionsPerFocal,
    int focalPerDoc,
    int maxDocs,
    String corpus)
    implements ConfigSection {

  /** A kind of synthetic document, as {@code synthetic_docs.kind} names it. */
  public enum Kind {
    /** WRAP-like style rewrites. */
    REPHRASE,
    /** EntiGraph-like documents about entities, pairs and triples. */
    ENTITY,
    /** Focal Rewriting: the source rewritten around given questions. */
    FOCAL;

    @JsonValue
    public String id() {
      return EnumNames.id(this);
    }

    /** As spelled in config, so messages read like the YAML. */
    @Override
    public String toString() {
      return id();
    }

    @JsonCreator
    public static Kind fromName(String name) {
      return EnumNames.parse(Kind.class, name);
    }
  }

  @Override
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    for (String style : rephraseStyles) {
      if (!GenerationTask.STYLES.contains(style)) {
        problems.add(
            "rephrase_styles: got " + style + ", expected " + Names.either(GenerationTask.STYLES));
      }
    }
    if (questionsPerFocal < 1) {
      problems.add("questions_per_focal: got " + questionsPerFocal + ", expected an integer >= 1");
    }
    return problems;
  }
}
