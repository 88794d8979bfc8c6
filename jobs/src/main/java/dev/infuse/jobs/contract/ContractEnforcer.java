package dev.infuse.jobs.contract;

import static org.apache.spark.sql.functions.array;
import static org.apache.spark.sql.functions.array_compact;
import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.concat_ws;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.expr;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.not;
import static org.apache.spark.sql.functions.raise_error;
import static org.apache.spark.sql.functions.size;
import static org.apache.spark.sql.functions.substring;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.to_json;
import static org.apache.spark.sql.functions.when;

import dev.infuse.jobs.spark.FirstRows;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Checks data against a {@link Contract}: the schema (every column present with its declared type,
 * no undeclared column), non-null columns, row constraints and primary-key uniqueness.
 *
 * <p>Two uses: {@link #withViolations} tags each row with what is wrong with it, so a reader can
 * send bad rows to quarantine; {@link #enforce} fails a write that breaks the contract at all.
 */
public final class ContractEnforcer {
  /** The column {@link #withViolations} adds: an array of messages, empty for a valid row. */
  public static final String VIOLATIONS = "_violations";

  private static final int MAX_REPORTED = 5;
  private static final String ROWS = "_rows";
  private static final String VIOLATING = "_violating";
  private static final int MAX_VALUE_CHARS = 120;

  private final Contract contract;

  public ContractEnforcer(Contract contract) {
    this.contract = contract;
  }

  public Contract contract() {
    return contract;
  }

  /**
   * Schema mismatches, as "table T, column C: got X, expected Y"; empty when the schema conforms.
   */
  public List<String> schemaProblems(StructType schema) {
    List<String> problems = new ArrayList<>();
    Set<String> present = Arrays.stream(schema.fieldNames()).collect(Collectors.toSet());
    for (Contract.Column column : contract.columns()) {
      String expected = column.dataType().catalogString();
      if (!present.contains(column.name())) {
        problems.add(prefix(column.name()) + "got no such column, expected " + expected);
        continue;
      }
      StructField field = schema.apply(column.name());
      String got = field.dataType().catalogString();
      if (!got.equals(expected)) {
        problems.add(prefix(column.name()) + "got " + got + ", expected " + expected);
      }
    }
    List<String> declared = contract.columnNames();
    for (String name : schema.fieldNames()) {
      if (!declared.contains(name) && !name.equals(VIOLATIONS)) {
        problems.add(
            prefix(name)
                + "got an undeclared column, expected only "
                + declared
                + " (contract "
                + contract.versionTag()
                + ")");
      }
    }
    return problems;
  }

  /** The contract's columns in declared order; fails on any schema mismatch. */
  public Dataset<Row> conform(Dataset<Row> data) {
    List<String> problems = schemaProblems(data.schema());
    if (!problems.isEmpty()) {
      throw new ContractViolationException(contract.table(), problems, problems.size());
    }
    return data.select(
        contract.columnNames().stream()
            .map(org.apache.spark.sql.functions::col)
            .toArray(Column[]::new));
  }

  /** {@code data} (conformed) plus {@link #VIOLATIONS}: what each row breaks, as messages. */
  public Dataset<Row> withViolations(Dataset<Row> data) {
    List<Column> checks = new ArrayList<>();
    for (Contract.Column column : contract.columns()) {
      if (!column.nullable()) {
        checks.add(
            when(
                col(column.name()).isNull(),
                lit(
                    prefix(column.name())
                        + "got null, expected a non-null "
                        + column.dataType().catalogString())));
      }
    }
    for (Contract.Constraint constraint : contract.constraints()) {
      Column holds = coalesce(expr(constraint.check()), lit(false));
      Column message =
          concat(
              lit(prefix(constraint.column()) + "got "),
              coalesce(valueText(constraint.column()), lit("null")),
              lit(
                  ", expected "
                      + constraint.expected()
                      + " (constraint "
                      + constraint.name()
                      + ")"));
      checks.add(when(not(holds), message));
    }
    Column violations =
        checks.isEmpty()
            ? array().cast("array<string>")
            : array_compact(array(checks.toArray(Column[]::new)));
    return data.withColumn(VIOLATIONS, violations);
  }

  /**
   * Fails when {@code data} breaks the contract in any way; returns it conformed otherwise. The
   * message lists up to five violations, each naming the row's key.
   */
  public Dataset<Row> enforce(Dataset<Row> data) {
    Dataset<Row> conformed = conform(data);
    Column[] keyColumns =
        contract.primaryKey().stream()
            .map(org.apache.spark.sql.functions::col)
            .toArray(Column[]::new);
    // One pass over the data for both checks, since every conforming write (the usual case) pays
    // for it: per key (a contract always has one), its rows and how many of them break a rule.
    // The messages come after, from passes that only a failing write makes.
    Dataset<Row> problemKeys =
        withViolations(conformed)
            .groupBy(keyColumns)
            .agg(
                count(lit(1)).as(ROWS),
                sum(when(size(col(VIOLATIONS)).gt(0), 1).otherwise(0)).as(VIOLATING))
            .filter(col(VIOLATING).gt(0).or(col(ROWS).gt(1)));
    List<Row> problems = FirstRows.of(problemKeys, MAX_REPORTED);
    if (problems.stream().anyMatch(row -> row.getLong(row.fieldIndex(VIOLATING)) > 0)) {
      throw violations(conformed);
    }
    if (!problems.isEmpty()) {
      List<String> messages = new ArrayList<>();
      for (Row row : problems) {
        List<String> values = new ArrayList<>();
        for (int i = 0; i < keyColumns.length; i++) {
          values.add(contract.primaryKey().get(i) + "=" + row.get(i));
        }
        messages.add(
            "table "
                + contract.table()
                + ", primary key "
                + contract.primaryKey()
                + ": got "
                + row.getLong(row.fieldIndex(ROWS))
                + " rows with "
                + String.join(", ", values)
                + ", expected unique keys");
      }
      throw new ContractViolationException(contract.table(), messages, problems.size());
    }
    return conformed;
  }

  /**
   * {@code data} conformed, with the contract's row rules checked as the rows stream past: the
   * first row that breaks one fails its task (and so the write that reads it) with a message naming
   * the row's key. For writes that compute their rows in the same pass (the LLM calls), where a
   * separate checking pass would compute them twice. Keys are <em>not</em> checked for uniqueness
   * here: the caller guarantees it.
   */
  public Dataset<Row> enforceInline(Dataset<Row> data) {
    Dataset<Row> checked = withViolations(conform(data));
    // The check rides on the first key column so that no projection can prune it away.
    String key = contract.primaryKey().get(0);
    Column failure =
        raise_error(
            concat(
                lit("table " + contract.table() + ", row "),
                keyText(),
                lit(": "),
                concat_ws("; ", col(VIOLATIONS))));
    return checked
        .withColumn(key, when(size(col(VIOLATIONS)).gt(0), failure).otherwise(col(key)))
        .select(
            contract.columnNames().stream()
                .map(org.apache.spark.sql.functions::col)
                .toArray(Column[]::new));
  }

  /** Up to five rows that break a rule, each message naming the row's key, and their total. */
  private ContractViolationException violations(Dataset<Row> conformed) {
    Dataset<Row> bad = withViolations(conformed).filter(size(col(VIOLATIONS)).gt(0));
    List<String> messages = new ArrayList<>();
    for (Row row :
        bad.select(keyText().as("key"), col(VIOLATIONS)).limit(MAX_REPORTED).collectAsList()) {
      for (Object violation : row.getList(1)) {
        messages.add("row " + row.getString(0) + ": " + violation);
      }
    }
    return new ContractViolationException(contract.table(), messages, bad.count());
  }

  private String prefix(String column) {
    return "table " + contract.table() + ", column " + column + ": ";
  }

  /**
   * The value of a column as short text for messages: JSON for arrays and maps, the cast otherwise.
   */
  private Column valueText(String column) {
    DataType type = contract.column(column).map(Contract.Column::dataType).orElse(null);
    Column value =
        type instanceof ArrayType || type instanceof MapType || type instanceof StructType
            ? to_json(col(column))
            : col(column).cast("string");
    return substring(value, 1, MAX_VALUE_CHARS);
  }

  private Column keyText() {
    List<Column> parts = new ArrayList<>();
    for (String key : contract.primaryKey()) {
      if (!parts.isEmpty()) {
        parts.add(lit(", "));
      }
      parts.add(lit(key + "="));
      parts.add(coalesce(col(key).cast("string"), lit("null")));
    }
    return concat(parts.toArray(Column[]::new));
  }
}
