package dev.infuse.udfs.ingest;

import java.util.Locale;

/** How a question is answered and scored. */
public enum AnswerType {
  /** Pick one of the options; gold is the option letter. */
  MCQ,
  /** Free text; scored by tolerance or a judge. */
  FREE,
  /** A number; gold is the number as written, without thousands separators. */
  NUMERIC,
  /** One of a fixed label set (NLI); options are the labels. */
  LABEL;

  /** The name stored in the table: lowercase. */
  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }
}
