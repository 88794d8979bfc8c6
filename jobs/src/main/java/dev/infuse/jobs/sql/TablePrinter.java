package dev.infuse.jobs.sql;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * Prints rows as an aligned text table, the way {@code psql} does: a header, a rule, one line per
 * row, and a row count. Cells are single-line; long cells are cut with an ellipsis unless
 * truncation is off.
 */
public final class TablePrinter {
  private final int maxCellChars;

  /**
   * @param maxCellChars cut cells longer than this; 0 keeps them whole
   */
  public TablePrinter(int maxCellChars) {
    this.maxCellChars = maxCellChars;
  }

  public void print(List<String> header, List<List<String>> rows, boolean more, PrintWriter out) {
    List<List<String>> cells = new ArrayList<>();
    for (List<String> row : rows) {
      cells.add(row.stream().map(this::cell).toList());
    }
    int[] widths = new int[header.size()];
    for (int c = 0; c < header.size(); c++) {
      widths[c] = header.get(c).length();
      for (List<String> row : cells) {
        widths[c] = Math.max(widths[c], row.get(c).length());
      }
    }
    out.println(line(header, widths));
    StringBuilder rule = new StringBuilder();
    for (int c = 0; c < widths.length; c++) {
      rule.append(c == 0 ? "" : "-+-").append("-".repeat(widths[c]));
    }
    out.println(rule);
    for (List<String> row : cells) {
      out.println(line(row, widths));
    }
    out.println(
        "("
            + rows.size()
            + (rows.size() == 1 ? " row" : " rows")
            + (more ? "; more not shown, raise --limit" : "")
            + ")");
    out.flush();
  }

  private String cell(String value) {
    String text =
        value == null
            ? "NULL"
            : value.replace("\r", "\\r").replace("\n", "\\n").replace("\t", "\\t");
    if (maxCellChars > 0 && text.length() > maxCellChars) {
      return text.substring(0, Math.max(1, maxCellChars - 1)) + "…";
    }
    return text;
  }

  private static String line(List<String> values, int[] widths) {
    StringBuilder line = new StringBuilder();
    for (int c = 0; c < widths.length; c++) {
      String value = values.get(c);
      line.append(c == 0 ? "" : " | ").append(value).append(" ".repeat(widths[c] - value.length()));
    }
    return line.toString().stripTrailing();
  }
}
