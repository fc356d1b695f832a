package io.outboxrelay.writer;

/**
 * An event the writer refuses to write: a required field is missing or empty, a version is below 1,
 * a header breaks the rules of the headers column, the payload cannot be serialised, or the event
 * needs a column the table does not have. The message names the event, the field and what to do.
 * Nothing of the call that threw was written.
 */
public final class InvalidEventException extends IllegalArgumentException {

  private static final long serialVersionUID = 1L;

  private final int index;
  private final String field;

  InvalidEventException(int index, String field, String message, Throwable cause) {
    super(message, cause);
    this.index = index;
    this.field = field;
  }

  /** The position of the refused event in the list given to the writer, from 0. */
  public int index() {
    return index;
  }

  /**
   * The field at fault: {@code aggregate_type}, {@code aggregate_id}, {@code event_type}, {@code
   * event_id}, {@code payload}, {@code aggregate_version} or {@code headers}.
   */
  public String field() {
    return field;
  }
}
