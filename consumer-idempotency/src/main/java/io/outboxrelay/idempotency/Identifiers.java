package io.outboxrelay.idempotency;

import java.util.regex.Pattern;

/** Validation of table names (put into SQL text) and of key values (bound as parameters). */
final class Identifiers {

  /** An unquoted SQL identifier, optionally schema-qualified; at most 64 characters per part. */
  private static final Pattern TABLE =
      Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,63}(\\.[A-Za-z_][A-Za-z0-9_]{0,63})?");

  /** The width of the key columns in config/{mysql,postgresql}/processed-events.sql. */
  static final int MAX_KEY_LENGTH = 255;

  private Identifiers() {}

  /**
   * Checks a table name before it is put into SQL.
   *
   * @throws IllegalArgumentException if it is not a plain identifier
   */
  static String requireTableName(String name, String what) {
    if (name == null || !TABLE.matcher(name).matches()) {
      throw new IllegalArgumentException(
          what
              + " must be an unquoted SQL identifier ([A-Za-z_][A-Za-z0-9_]*, at most 64"
              + " characters, optionally schema.table), got: "
              + name);
    }
    return name;
  }

  /**
   * Checks a value stored in a key column. {@code INSERT IGNORE} would silently truncate a value
   * that is too long (two ids could then collide), and MariaDB/MySQL PAD SPACE collations compare
   * {@code "x"} and {@code "x "} as equal; both are refused here, on every database alike.
   *
   * @throws IllegalArgumentException if the value is blank, too long or ends with a space
   */
  static String requireKeyValue(String value, String what) {
    if (value.isBlank()) {
      throw new IllegalArgumentException(what + " must not be blank");
    }
    if (value.length() > MAX_KEY_LENGTH) {
      throw new IllegalArgumentException(
          what + " is longer than " + MAX_KEY_LENGTH + " characters (" + value.length() + ")");
    }
    if (value.charAt(value.length() - 1) == ' ') {
      throw new IllegalArgumentException(
          what
              + " ends with a space, which MariaDB and MySQL ignore in comparisons: '"
              + value
              + "'");
    }
    return value;
  }
}
