package io.outboxrelay.idempotency.kafka;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What happens to a record once its attempts are used up, or at once for a poison record (no event
 * id header, an id that is not valid UTF-8, malformed version header, {@link PoisonRecordException}
 * from the handler, an event id conflict found by the processor's conflict check). Nothing is ever
 * dropped silently. Immutable and thread-safe.
 *
 * <p>Whatever the policy, a failure to reach the consumer's database (connection refused or lost)
 * stops the consumer after the retries, and a database that needs a migration ({@link
 * io.outboxrelay.idempotency.SchemaMigrationRequiredException}) stops it at once: the record is not
 * at fault and is not dead-lettered.
 *
 * @param action what to do
 * @param deadLetterTopic the topic for {@link Action#DEAD_LETTER}, {@code null} for {@link
 *     Action#STOP}
 */
public record FailurePolicy(Action action, String deadLetterTopic) {

  /** Header of a dead-lettered record: the topic it was consumed from. */
  public static final String HEADER_ORIGINAL_TOPIC = "dlq.original.topic";

  /** Header of a dead-lettered record: its partition there (decimal). */
  public static final String HEADER_ORIGINAL_PARTITION = "dlq.original.partition";

  /** Header of a dead-lettered record: its offset there (decimal). */
  public static final String HEADER_ORIGINAL_OFFSET = "dlq.original.offset";

  /** Header of a dead-lettered record: the consumer group that gave up on it. */
  public static final String HEADER_CONSUMER_GROUP = "dlq.consumer.group";

  /** Header of a dead-lettered record: the class name of the last failure. */
  public static final String HEADER_ERROR_CLASS = "dlq.error.class";

  /**
   * Header of a dead-lettered record: the message of the last failure, at most 1,000 characters.
   */
  public static final String HEADER_ERROR_MESSAGE = "dlq.error.message";

  /** Header of a dead-lettered record: how many attempts failed (decimal). */
  public static final String HEADER_ATTEMPTS = "dlq.attempts";

  private static final Pattern TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

  /** The two policies. */
  public enum Action {
    /**
     * Publish the record to the dead-letter topic (same key, value and headers, plus the {@code
     * dlq.*} headers), wait for the broker's acknowledgement, then go on past it. If publishing
     * fails, the consumer stops instead.
     */
    DEAD_LETTER,
    /**
     * Stop the consumer: {@link IdempotentConsumer#run()} throws {@link ConsumerStoppedException};
     * the record's offset is not committed, so it is delivered again after a restart.
     */
    STOP
  }

  /**
   * Validates the combination.
   *
   * @param action see {@link FailurePolicy}
   * @param deadLetterTopic see {@link FailurePolicy}
   * @throws NullPointerException if {@code action} is {@code null}
   * @throws IllegalArgumentException if the topic is missing or not a legal topic name for {@link
   *     Action#DEAD_LETTER}, or present for {@link Action#STOP}
   */
  public FailurePolicy {
    Objects.requireNonNull(action, "action");
    if (action == Action.DEAD_LETTER
        && (deadLetterTopic == null || !TOPIC.matcher(deadLetterTopic).matches())) {
      throw new IllegalArgumentException("not a legal dead-letter topic name: " + deadLetterTopic);
    }
    if (action == Action.STOP && deadLetterTopic != null) {
      throw new IllegalArgumentException("STOP takes no dead-letter topic");
    }
  }

  /**
   * Dead-letter to {@code topic}.
   *
   * @param topic the dead-letter topic; it must exist or be auto-created by the broker
   * @return the policy
   * @throws IllegalArgumentException if {@code topic} is not a legal topic name
   */
  public static FailurePolicy deadLetter(String topic) {
    return new FailurePolicy(Action.DEAD_LETTER, topic);
  }

  /**
   * Stop the consumer.
   *
   * @return the policy
   */
  public static FailurePolicy stop() {
    return new FailurePolicy(Action.STOP, null);
  }
}
