package dev.infuse.jobs.contract;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.MetadataBuilder;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The declared shape of one table, loaded from {@code data-contracts/<table>.json}. The format is
 * documented in {@code data-contracts/README.md}.
 *
 * @param table the table name, also its directory under the warehouse
 * @param version bumped on every change to columns, types or constraints
 * @param description what one row is
 * @param primaryKey the columns that identify a row; writes merge on them
 * @param partitionBy the Delta partition columns, possibly none
 * @param columns every column, in order
 * @param constraints row-level checks as Spark SQL boolean expressions
 */
public record Contract(
    String table,
    int version,
    String description,
    @JsonProperty("primary_key") List<String> primaryKey,
    @JsonProperty("partition_by") List<String> partitionBy,
    List<Column> columns,
    List<Constraint> constraints) {

  /**
   * One column.
   *
   * @param type a Spark SQL type in DDL form: {@code string}, {@code int}, {@code array<string>}, …
   */
  public record Column(String name, String type, boolean nullable, String description) {
    /** The parsed Spark type; fails with the column's name if the DDL is invalid. */
    public DataType dataType() {
      try {
        return DataType.fromDDL(type);
      } catch (Exception e) { // Spark's ParseException is checked, and thrown undeclared from Scala
        throw new IllegalArgumentException(
            "column "
                + name
                + ": type '"
                + type
                + "' is not a Spark SQL type ("
                + firstLine(e)
                + ")",
            e);
      }
    }
  }

  /**
   * A row-level check.
   *
   * @param column the column the message reports the value of
   * @param check a Spark SQL boolean expression that must hold; NULL counts as a violation
   * @param expected what a valid value is, in words, for the error message
   */
  public record Constraint(String name, String column, String check, String expected) {}

  public Contract {
    primaryKey = List.copyOf(primaryKey == null ? List.of() : primaryKey);
    partitionBy = List.copyOf(partitionBy == null ? List.of() : partitionBy);
    columns = List.copyOf(columns == null ? List.of() : columns);
    constraints = List.copyOf(constraints == null ? List.of() : constraints);
  }

  public Optional<Column> column(String name) {
    return columns.stream().filter(c -> c.name().equals(name)).findFirst();
  }

  public List<String> columnNames() {
    return columns.stream().map(Column::name).toList();
  }

  /** The Spark schema, with each column's description as its comment so that DESCRIBE shows it. */
  public StructType schema() {
    List<StructField> fields = new ArrayList<>();
    for (Column column : columns) {
      Metadata comment = new MetadataBuilder().putString("comment", column.description()).build();
      fields.add(new StructField(column.name(), column.dataType(), column.nullable(), comment));
    }
    return new StructType(fields.toArray(StructField[]::new));
  }

  /**
   * {@code documents@1}: stored as a table property so a reader knows which contract wrote the
   * table.
   */
  public String versionTag() {
    return table + "@" + version;
  }

  /** Every structural problem of the contract itself, empty when it is well formed. */
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    if (table == null || table.isBlank()) {
      problems.add("table: missing, expected the table name");
    }
    if (version < 1) {
      problems.add("version: got " + version + ", expected an integer >= 1");
    }
    if (columns.isEmpty()) {
      problems.add("columns: empty, expected at least one column");
    }
    for (Column column : columns) {
      try {
        column.dataType();
      } catch (IllegalArgumentException e) {
        problems.add(e.getMessage());
      }
    }
    if (primaryKey.isEmpty()) {
      problems.add("primary_key: empty, expected at least one column");
    }
    for (String key : primaryKey) {
      Optional<Column> column = column(key);
      if (column.isEmpty()) {
        problems.add("primary_key: column " + key + " is not declared");
      } else if (column.get().nullable()) {
        problems.add("primary_key: column " + key + " is nullable, expected nullable: false");
      }
    }
    for (String partition : partitionBy) {
      if (column(partition).isEmpty()) {
        problems.add("partition_by: column " + partition + " is not declared");
      }
    }
    for (Constraint constraint : constraints) {
      if (constraint.column() == null || column(constraint.column()).isEmpty()) {
        problems.add(
            "constraint "
                + constraint.name()
                + ": column "
                + constraint.column()
                + " is not declared");
      }
      try {
        org.apache.spark.sql.functions.expr(constraint.check());
      } catch (Exception e) { // as above: ParseException is checked
        problems.add(
            "constraint "
                + constraint.name()
                + ": check '"
                + constraint.check()
                + "' does not parse: "
                + firstLine(e));
      }
    }
    return problems;
  }

  private static String firstLine(Exception e) {
    String message = e.getMessage() == null ? e.toString() : e.getMessage();
    return message
        .lines()
        .map(String::trim)
        .filter(l -> !l.isEmpty())
        .findFirst()
        .orElse(e.toString());
  }
}
