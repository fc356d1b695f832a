package io.outboxrelay.writer;

import java.util.regex.Pattern;

/** Validation of the table and column names the writer puts into SQL text. */
final class Identifiers {

  /** One unquoted identifier: at most 63 characters, PostgreSQL's limit (MySQL's is 64). */
  private static final String PART = "[A-Za-z_][A-Za-z0-9_]{0,62}";

  private static final Pattern COLUMN = Pattern.compile(PART);
  private static final Pattern TABLE = Pattern.compile(PART + "(\\." + PART + ")?");

  private Identifiers() {}

  /**
   * Checks a table name, optionally {@code schema.table}.
   *
   * @throws IllegalArgumentException if it is not a plain identifier
   */
  static String requireTable(String name) {
    if (name == null || !TABLE.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "table must be a plain SQL identifier ([A-Za-z_][A-Za-z0-9_]*, at most 63 characters,"
              + " optionally schema.table), got: "
              + name);
    }
    return name;
  }

  /**
   * Checks a column name.
   *
   * @throws IllegalArgumentException if it is not a plain identifier
   */
  static String requireColumn(String name, String what) {
    if (name == null || !COLUMN.matcher(name).matches()) {
      throw new IllegalArgumentException(
          what
              + " must be a plain SQL identifier ([A-Za-z_][A-Za-z0-9_]*, at most 63"
              + " characters), got: "
              + name);
    }
    return name;
  }
}
