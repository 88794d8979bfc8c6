package dev.infuse.jobs.contract;

import java.util.List;

/**
 * A write that breaks its table's contract. The message names the table, column, value and
 * expectation.
 */
public final class ContractViolationException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final List<String> violations;

  public ContractViolationException(String table, List<String> violations, long violatingRows) {
    super(
        "contract violated for table "
            + table
            + " ("
            + violatingRows
            + " row(s) or column(s)):\n  "
            + String.join("\n  ", violations));
    this.violations = List.copyOf(violations);
  }

  public List<String> violations() {
    return violations;
  }
}
