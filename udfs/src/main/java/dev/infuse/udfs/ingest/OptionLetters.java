package dev.infuse.udfs.ingest;

/** Option letters for multiple-choice gold answers: index 0 is {@code A}. */
final class OptionLetters {
  /** The most options a letter can name. */
  static final int MAX_OPTIONS = 26;

  private OptionLetters() {}

  static String letter(int index) {
    if (index < 0 || index >= MAX_OPTIONS) {
      throw new IllegalArgumentException("no option letter for index " + index);
    }
    return String.valueOf((char) ('A' + index));
  }

  /** Rejects option lists that letters cannot address. */
  static void checkCount(String field, int count) {
    if (count < 1 || count > MAX_OPTIONS) {
      throw new BadRecordException(
          field + ": got " + count + " options, expected 1.." + MAX_OPTIONS);
    }
  }
}
