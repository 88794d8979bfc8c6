package dev.infuse.udfs.answer;

import java.util.List;

/** The answer types of {@code questions.answer_type}, as the answering code names them. */
public final class AnswerTypes {
  public static final String MCQ = "mcq";
  public static final String LABEL = "label";
  public static final String NUMERIC = "numeric";
  public static final String FREE = "free";
  public static final List<String> ALL = List.of(MCQ, LABEL, NUMERIC, FREE);

  private AnswerTypes() {}

  /** The letter of option {@code index}: A for 0. */
  public static String letter(int index) {
    if (index < 0 || index >= 26) {
      throw new IllegalArgumentException("option index: got " + index + ", expected 0..25");
    }
    return String.valueOf((char) ('A' + index));
  }

  /** The 0-based index of an option letter (either case), or -1 when it is not a letter. */
  public static int index(String letter) {
    if (letter == null || letter.length() != 1) {
      return -1;
    }
    char c = Character.toUpperCase(letter.charAt(0));
    return c >= 'A' && c <= 'Z' ? c - 'A' : -1;
  }
}
