package io.outboxrelay.idempotency;

import io.outboxrelay.router.Dialect;
import io.outboxrelay.router.Identifiers;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * Applies each event's business change exactly once per consumer group, however often the event is
 * delivered.
 *
 * <p>{@link #process(EventRef, EventHandler)} takes a connection from the data source and, in one
 * transaction on it: inserts {@code (consumer group, event id)} into the processed-events table
 * under its primary key; if the key was already there, skips the handler ({@link
 * Outcome#DUPLICATE}); otherwise, when the version check is on and the event carries a version,
 * skips events not newer than the aggregate's last applied version ({@link Outcome#STALE}); then
 * runs the handler on the same connection and commits ({@link Outcome#PROCESSED}). Any failure
 * rolls back the id and the business change together and is rethrown.
 *
 * <p>Event ids must be unique per event: a second, different event under an id already recorded is
 * taken for a redelivery and skipped. The optional conflict check ({@link Builder#conflictCheck()})
 * records a hash of each event's payload with its id and reports such an event as {@link
 * Outcome#CONFLICT} instead.
 *
 * <p>Concurrent deliveries of one event (two consumers, a consumer that lost its partition but is
 * still working) wait for each other on the key: the second insert blocks until the first
 * transaction ends, then finds a duplicate (first committed) or proceeds (first rolled back).
 *
 * <pre>{@code
 * IdempotentProcessor processor = IdempotentProcessor.builder(dataSource, "billing").build();
 * Outcome outcome = processor.process(EventRef.of(eventId), connection -> {
 *   try (PreparedStatement s = connection.prepareStatement("UPDATE account SET ...")) { ... }
 * });
 * }</pre>
 *
 * <p>Implementations are thread-safe: one processor may serve many threads, each call uses its own
 * connection.
 */
public interface IdempotentProcessor {

  /**
   * Starts building a processor.
   *
   * @param dataSource connections to the consumer's database, where its business tables and the
   *     tables of {@code config/<dialect>/processed-events.sql} live; not {@code null}
   * @param consumerGroup the name under which events count as processed, normally the Kafka {@code
   *     group.id}; not blank, at most 255 characters, no trailing space
   * @return a builder
   * @throws NullPointerException if an argument is {@code null}
   * @throws IllegalArgumentException if {@code consumerGroup} is not valid
   */
  static Builder builder(DataSource dataSource, String consumerGroup) {
    return new Builder(dataSource, consumerGroup);
  }

  /** The consumer group whose processed events this processor records; never {@code null}. */
  String consumerGroup();

  /**
   * Whether this processor compares payload hashes ({@link Builder#conflictCheck()}): only then is
   * an event's {@link EventRef#payloadHash()} worth computing.
   *
   * @return true when the conflict check is on
   */
  default boolean checksConflicts() {
    return false;
  }

  /**
   * Processes one event at most once for this consumer group: see {@link IdempotentProcessor}.
   *
   * @param event the event's id and optional aggregate version; not {@code null}
   * @param handler the business change; not {@code null}; see {@link EventHandler} for what it must
   *     not do
   * @return {@link Outcome#PROCESSED} if the handler ran and committed, {@link Outcome#DUPLICATE},
   *     {@link Outcome#STALE} or {@link Outcome#CONFLICT} if it was skipped (the transaction
   *     committed in every case)
   * @throws RuntimeException an unchecked exception of the handler, unchanged, after rollback
   * @throws EventProcessingException after rollback, wrapping a checked exception of the handler or
   *     an {@link java.sql.SQLException} of the database (deadlock victims and lock wait timeouts
   *     included: retry them)
   * @throws VersionGapException after rollback, if the version skips ahead and {@link
   *     GapPolicy#REJECT} is in force
   * @throws IllegalStateException after rollback, if the handler tried to end the transaction
   * @throws SchemaMigrationRequiredException before anything is written, if the conflict check is
   *     on and the processed-events table has no {@code payload_hash} column
   */
  Outcome process(EventRef event, EventHandler handler);

  /**
   * Records the event in a transaction the caller owns, for callers whose business change runs in a
   * transaction they (or their framework) begin and end, such as a Spring-managed one: on {@code
   * connection}, inside its current transaction, inserts {@code (consumer group, event id)} into
   * the processed-events table and, with the version check on, checks and stores the aggregate
   * version exactly as {@link #process(EventRef, EventHandler)} does. It neither commits nor rolls
   * back.
   *
   * <p>The caller then applies the event's business change in the same transaction only if this
   * returns {@link Outcome#PROCESSED}, and commits or rolls back the id and the change together. On
   * {@link Outcome#DUPLICATE}, {@link Outcome#STALE} and {@link Outcome#CONFLICT} it skips the
   * change and may commit (a stale event's id is recorded, so that its redeliveries are
   * duplicates). After an exception it must roll back. The transaction should begin with this call:
   * a concurrent delivery of the event waits on the id's key until this transaction ends.
   *
   * <p>Unlike {@link #process(EventRef, EventHandler)}, a deadlock while recording the id is not
   * retried here (a deadlock victim's whole transaction is rolled back, and it is the caller's): it
   * is thrown, and the caller retries the event in a new transaction. {@link #counters()} does not
   * count these calls, whose outcome is known only when the caller's transaction ends.
   *
   * @param connection a connection in a transaction (auto-commit off); not {@code null}; not closed
   *     or changed beyond the statements described
   * @param event the event's id and optional aggregate version; not {@code null}
   * @return {@link Outcome#PROCESSED} when the event is new and admitted (it counts as processed
   *     once the caller commits), or why it must be skipped
   * @throws SQLException if the database fails (deadlock victims and lock wait timeouts included:
   *     roll back and retry)
   * @throws VersionGapException if the version skips ahead and {@link GapPolicy#REJECT} is in force
   *     (roll back; retriable)
   * @throws IllegalStateException if {@code connection} is in auto-commit mode
   * @throws SchemaMigrationRequiredException before anything is written, if the conflict check is
   *     on and the processed-events table has no {@code payload_hash} column
   */
  Outcome admit(Connection connection, EventRef event) throws SQLException;

  /**
   * Shorthand for {@code process(EventRef.of(eventId), handler)}.
   *
   * @param eventId the event id; see {@link EventRef}
   * @param handler the business change; not {@code null}
   * @return the outcome
   * @throws IllegalArgumentException if the event id is not valid
   * @throws RuntimeException as {@link #process(EventRef, EventHandler)}
   */
  default Outcome process(String eventId, EventHandler handler) {
    return process(EventRef.of(eventId), handler);
  }

  /**
   * Deletes this consumer group's processed-event ids recorded more than {@code age} ago by the
   * database clock, in batches of the configured size, each its own short transaction, until none
   * is left. Rows recorded while it runs are not deleted (the cutoff is fixed at the start).
   *
   * <p>Keep ids longer than the longest window in which an event can be delivered again (Kafka
   * retention of the topic, consumer lag, a relay re-publishing after a restore): an event
   * redelivered after its id was deleted is applied a second time. Safe to run while consumers
   * work; run it from one place at a time.
   *
   * @param age how old a row must be to be deleted; positive
   * @return what was deleted
   * @throws IllegalArgumentException if {@code age} is not positive or too large
   * @throws SQLException if the database fails; batches already deleted stay deleted
   */
  PurgeResult purgeOlderThan(Duration age) throws SQLException;

  /** Counts since this processor was built; thread-safe, never {@code null}. */
  Counters counters();

  /**
   * Configures an {@link IdempotentProcessor}.
   *
   * <p>Not thread-safe; use from one thread.
   */
  final class Builder {

    private final DataSource dataSource;
    private final String consumerGroup;
    private Dialect dialect;
    private String processedEventsTable = "processed_events";
    private String aggregateVersionsTable = "processed_aggregate_versions";
    private GapPolicy gapPolicy;
    private boolean conflictCheck;
    private int purgeBatchSize = 1_000;

    private Builder(DataSource dataSource, String consumerGroup) {
      this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
      this.consumerGroup =
          KeyValues.require(
              Objects.requireNonNull(consumerGroup, "consumerGroup"), "consumer group");
    }

    /**
     * Sets the SQL dialect. By default it is detected from the first connection's metadata.
     *
     * @param dialect the dialect; not {@code null}
     * @return this builder
     */
    public Builder dialect(Dialect dialect) {
      this.dialect = Objects.requireNonNull(dialect, "dialect");
      return this;
    }

    /**
     * Sets the processed-events table (default {@code processed_events}).
     *
     * @param table an unquoted identifier, optionally {@code schema.table}
     * @return this builder
     * @throws IllegalArgumentException if it is not a plain identifier
     */
    public Builder processedEventsTable(String table) {
      this.processedEventsTable = Identifiers.requireTable(table, "processedEventsTable");
      return this;
    }

    /**
     * Sets the aggregate-versions table of the version check (default {@code
     * processed_aggregate_versions}).
     *
     * @param table an unquoted identifier, optionally {@code schema.table}
     * @return this builder
     * @throws IllegalArgumentException if it is not a plain identifier
     */
    public Builder aggregateVersionsTable(String table) {
      this.aggregateVersionsTable = Identifiers.requireTable(table, "aggregateVersionsTable");
      return this;
    }

    /**
     * Turns on the per-aggregate version check (off by default) for events that carry an {@link
     * AggregateVersion}: the last applied version per aggregate is kept in the aggregate-versions
     * table, row-locked for the transaction; a version not greater than it is skipped as {@link
     * Outcome#STALE}; the first version seen of an aggregate is accepted whatever its value.
     *
     * @param gapPolicy what to do when a version skips ahead; not {@code null}
     * @return this builder
     */
    public Builder versionCheck(GapPolicy gapPolicy) {
      this.gapPolicy = Objects.requireNonNull(gapPolicy, "gapPolicy");
      return this;
    }

    /**
     * Turns on the conflict check (off by default): each event's payload hash ({@link
     * EventRef#payloadHash()}) is recorded with its id in the processed-events table's {@code
     * payload_hash} column, and an event whose id is already recorded with another hash is not
     * applied but reported as {@link Outcome#CONFLICT}: a different event under a reused id. The
     * same hash, or no hash on either side (an event without one, a row recorded with the check off
     * or before the column existed), is a {@link Outcome#DUPLICATE} as without the check.
     *
     * <p>Needs the column ({@code
     * config/<dialect>/migrations/processed-events-001-add-payload-hash.sql} adds it to an older
     * table): without it, {@link IdempotentProcessor#process(EventRef, EventHandler)} throws {@link
     * SchemaMigrationRequiredException}. With the check off the column is neither needed nor used.
     *
     * @return this builder
     */
    public Builder conflictCheck() {
      this.conflictCheck = true;
      return this;
    }

    /**
     * Sets how many rows one retention statement deletes (default 1,000).
     *
     * @param rows between 1 and 100,000
     * @return this builder
     * @throws IllegalArgumentException if out of range
     */
    public Builder purgeBatchSize(int rows) {
      if (rows < 1 || rows > 100_000) {
        throw new IllegalArgumentException("purgeBatchSize must be 1..100000, got " + rows);
      }
      this.purgeBatchSize = rows;
      return this;
    }

    /**
     * Builds the processor. It does not connect: the schema is used, and the dialect detected, on
     * first use.
     *
     * @return a thread-safe processor
     */
    public IdempotentProcessor build() {
      return new JdbcIdempotentProcessor(
          dataSource,
          consumerGroup,
          dialect,
          processedEventsTable,
          aggregateVersionsTable,
          gapPolicy,
          conflictCheck,
          purgeBatchSize);
    }
  }
}
