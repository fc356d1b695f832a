package io.outboxrelay.relay.admin;

import java.util.Map;

/**
 * Who runs an operator command, for the log line that records a change and for the reason kept in
 * {@code last_error}: the OS user, and the user behind {@code sudo} when there is one. Immutable.
 *
 * @param name e.g. {@code alice} or {@code root (sudo by alice)}
 */
public record Operator(String name) {

  /**
   * The user running this process.
   *
   * @return the operator
   */
  public static Operator current() {
    return of(System.getProperty("user.name", "unknown"), System.getenv());
  }

  static Operator of(String user, Map<String, String> env) {
    String sudo = env.get("SUDO_USER");
    return new Operator(
        sudo == null || sudo.isBlank() || sudo.equals(user)
            ? user
            : user + " (sudo by " + sudo + ")");
  }

  /** The longest reason a skip keeps. */
  static final int MAX_REASON = 500;

  /** The width of {@code last_error}. */
  static final int LAST_ERROR_WIDTH = 1000;

  /**
   * The {@code last_error} of a skipped event: who and why, then why it went DEAD, cut to the
   * column's width without splitting a character.
   *
   * @param reason the operator's reason
   * @param previous the event's {@code last_error} before, or null
   * @return the new value
   */
  String skippedError(String reason, String previous) {
    String text =
        "skipped by operator "
            + name
            + ": "
            + reason
            + (previous == null || previous.isBlank() ? "" : " | was DEAD: " + previous);
    return cut(text, LAST_ERROR_WIDTH);
  }

  /** At most {@code max} UTF-16 units, never half a surrogate pair. */
  static String cut(String s, int max) {
    if (s.length() <= max) {
      return s;
    }
    int end = Character.isHighSurrogate(s.charAt(max - 1)) ? max - 1 : max;
    return s.substring(0, end);
  }

  /**
   * Checks a skip reason.
   *
   * @param reason {@code --reason} as typed, or null
   * @return the reason, stripped
   * @throws AdminException (exit 2) when missing, blank or too long
   */
  public static String checkReason(String reason) throws AdminException {
    if (reason == null || reason.isBlank()) {
      throw AdminException.usage(
          "--reason is required: say why these events must never be published (it is kept in"
              + " last_error and logged)");
    }
    String r = reason.strip().replace('\n', ' ').replace('\r', ' ');
    if (r.length() > MAX_REASON) {
      throw AdminException.usage(
          "--reason is " + r.length() + " characters long: keep it under " + MAX_REASON);
    }
    return r;
  }
}
