package io.outboxrelay.router;

import java.util.regex.Pattern;

/**
 * The table and column names the libraries put into SQL text: plain identifiers, {@code
 * [A-Za-z_][A-Za-z0-9_]*}, at most 63 characters (PostgreSQL's limit; MySQL's is 64), a table
 * optionally as {@code schema.table}. Nothing else reaches SQL text, so a name cannot inject SQL.
 * Stateless and thread-safe.
 */
public final class Identifiers {

  /** One unquoted identifier: at most 63 characters, PostgreSQL's limit (MySQL's is 64). */
  private static final String PART = "[A-Za-z_][A-Za-z0-9_]{0,62}";

  private static final Pattern COLUMN = Pattern.compile(PART);
  private static final Pattern TABLE = Pattern.compile(PART + "(\\." + PART + ")?");

  private Identifiers() {}

  /**
   * Checks a table name, optionally {@code schema.table}.
   *
   * @param name the name; {@code null} is refused
   * @param what what the name is, for the message (e.g. {@code table})
   * @return the name
   * @throws IllegalArgumentException if it is not a plain identifier; the message starts with
   *     {@code what}
   */
  public static String requireTable(String name, String what) {
    if (name == null || !TABLE.matcher(name).matches()) {
      throw new IllegalArgumentException(
          what
              + " must be a plain SQL identifier ([A-Za-z_][A-Za-z0-9_]*, at most 63 characters,"
              + " optionally schema.table), got: "
              + name);
    }
    return name;
  }

  /**
   * Checks a column name.
   *
   * @param name the name; {@code null} is refused
   * @param what what the name is, for the message (e.g. {@code payloadColumn})
   * @return the name
   * @throws IllegalArgumentException if it is not a plain identifier; the message starts with
   *     {@code what}
   */
  public static String requireColumn(String name, String what) {
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
