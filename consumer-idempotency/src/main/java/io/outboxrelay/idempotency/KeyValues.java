package io.outboxrelay.idempotency;

/**
 * Validation of key values (bound as parameters); table names are checked by the router's {@code
 * Identifiers}.
 */
final class KeyValues {

  /** The width of the key columns in config/{mysql,postgresql}/processed-events.sql. */
  static final int MAX_KEY_LENGTH = 255;

  private KeyValues() {}

  /**
   * Checks a value stored in a key column. {@code INSERT IGNORE} would silently truncate a value
   * that is too long (two ids could then collide), and MariaDB/MySQL PAD SPACE collations compare
   * {@code "x"} and {@code "x "} as equal; both are refused here, on every database alike.
   *
   * @throws IllegalArgumentException if the value is blank, too long or ends with a space
   */
  static String require(String value, String what) {
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
