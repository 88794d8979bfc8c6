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
 * @param entityRecipe {@code capped}: the capped singles, pairs and triples below; {@code
 *     entigraph}: EntiGraph's plan, a summary, as many entities as possible, a document per entity,
 *     per pair of entities, and {@code entigraph_triples} seeded triples
 * @param maxEntities entities extracted per document (capped recipe)
 * @param entitySingles documents about one entity, per source document (the most frequent first)
 * @param entityPairs documents about a pair of entities, per source document (seeded sample)
 * @param entityTriples documents about three entities, per source document (seeded sample)
 * @param entigraphMaxEntities entigraph recipe: keep the first this many listed entities; 0 keeps
 *     all (pairs grow as n(n-1)/2)
 * @param entigraphTriples entigraph recipe: triples per source document, the first of a seeded
 *     shuffle of all triples
 * @param targetTokens generate in waves until the unique synthetic tokens ({@code n_tokens}) of the
 *     run's sources, kinds and generator in synthetic_docs reach this; 0 for no target
 * @param questionsPerFocal questions each focal rewrite is conditioned on
 * @param focalPerDoc focal rewrites per source document
 * @param maxDocs the most source documents, in a stable order; 0 for all
 * @param corpus only this corpus; null for all
 */
public record GenDocsConfig(
    List<Kind> kinds,
    List<String> rephraseStyles,
    int rephrasesPerStyle,
    EntityRecipe entityRecipe,
    int maxEntities,
    int entitySingles,
    int entityPairs,
    int entityTriples,
    int entigraphMaxEntities,
    int entigraphTriples,
    int questionsPerFocal,
    int focalPerDoc,
    int maxDocs,
    String corpus,
    long targetTokens)
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

  /** How entity documents are planned. */
  public enum EntityRecipe {
    /** Up to entity_singles, entity_pairs and entity_triples documents per source. */
    CAPPED,
    /** EntiGraph: a summary, every entity, every pair, and entigraph_triples seeded triples. */
    ENTIGRAPH;

    @JsonValue
    public String id() {
      return EnumNames.id(this);
    }

    @Override
    public String toString() {
      return id();
    }

    @JsonCreator
    public static EntityRecipe fromName(String name) {
      return EnumNames.parse(EntityRecipe.class, name);
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
    if (entityRecipe == null) {
      problems.add("entity_recipe: got nothing, expected capped or entigraph");
    }
    if (entigraphMaxEntities < 0) {
      problems.add(
          "entigraph_max_entities: got "
              + entigraphMaxEntities
              + ", expected an integer >= 0 (0 keeps every entity)");
    }
    if (entigraphTriples < 0) {
      problems.add("entigraph_triples: got " + entigraphTriples + ", expected an integer >= 0");
    }
    if (targetTokens < 0) {
      problems.add("target_tokens: got " + targetTokens + ", expected an integer >= 0 (0 for off)");
    }
    if (questionsPerFocal < 1) {
      problems.add("questions_per_focal: got " + questionsPerFocal + ", expected an integer >= 1");
    }
    return problems;
  }
}
