package dev.infuse.udfs.decontam;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.infuse.udfs.common.EnumNames;

/**
 * What a benchmark n-gram that is a quote of the question's own source document (see {@link
 * BenchmarkNgramIndex}) does to a training text. A quote of the source is the knowledge the
 * benchmark tests, not the benchmark's question or answer: cutting it from the corpus removes the
 * very evidence the model is meant to learn.
 */
public enum SourceQuotes {
  /**
   * Exempt in every text whose source document is in the question's corpus (the document itself,
   * its siblings and all synthetic text generated from them); still cut from replay and other
   * corpora, which are decontaminated against every n-gram of questions, options and answers.
   */
  EXEMPT_IN_CORPUS,
  /**
   * Exempt in every text, replay included: a quote of the source is corpus text wherever it
   * appears, and the text around a copied question still matches the question's other n-grams.
   */
  EXEMPT_EVERYWHERE,
  /** No exemption: every n-gram cuts, as before quotes were told apart. */
  NOT_EXEMPT;

  /** The name in config and tables. */
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
  public static SourceQuotes fromName(String name) {
    return EnumNames.parse(SourceQuotes.class, name);
  }

  /**
   * Whether a hit on a source quote of a question of {@code questionCorpus} is exempt in a text
   * whose source document is in {@code rowCorpus} (null for replay and other external text).
   */
  public boolean exempts(String questionCorpus, String rowCorpus) {
    return switch (this) {
      case EXEMPT_IN_CORPUS -> rowCorpus != null && rowCorpus.equals(questionCorpus);
      case EXEMPT_EVERYWHERE -> true;
      case NOT_EXEMPT -> false;
    };
  }
}
