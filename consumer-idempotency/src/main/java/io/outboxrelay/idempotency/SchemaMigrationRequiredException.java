package io.outboxrelay.idempotency;

/**
 * The consumer's tables lack what the processor's configuration needs (for example the {@code
 * payload_hash} column of the conflict check). The message is one line that names the migration to
 * run. Thrown by {@link IdempotentProcessor#process(EventRef, EventHandler)} before anything is
 * written; the processor looks again on the next call, so it works once the migration has run.
 * Retrying without the migration is pointless: the Kafka loop stops at once.
 */
public class SchemaMigrationRequiredException extends IllegalStateException {

  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what is missing and which migration adds it
   * @param cause the database's error; may be {@code null}
   */
  public SchemaMigrationRequiredException(String message, Throwable cause) {
    super(message, cause);
  }
}
