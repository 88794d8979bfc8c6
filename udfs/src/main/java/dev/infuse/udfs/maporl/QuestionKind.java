package dev.infuse.udfs.maporl;

import dev.infuse.udfs.common.EnumNames;

/** The kinds of question a MAPoRL discussion is about; each has its own answer format. */
public enum QuestionKind {
  /** Grade-school math: the answer is a number. */
  GSM8K("gsm8k"),
  /** Natural language inference: entailment, neutral or contradiction. */
  ANLI("anli"),
  /** Multiple choice: an option letter A, B, … */
  MCQ("mcq");

  private final String id;

  QuestionKind(String id) {
    this.id = id;
  }

  /** The name in config and tables. */
  public String id() {
    return id;
  }

  /**
   * The kind named {@code name}.
   *
   * @throws IllegalArgumentException naming the value got and the valid ones
   */
  public static QuestionKind fromName(String name) {
    return EnumNames.parse(QuestionKind.class, name);
  }
}
