package io.outboxrelay.relay.source.cdc.leader;

import io.debezium.config.Configuration;
import io.debezium.storage.jdbc.RetriableConnection;
import io.debezium.storage.jdbc.offset.JdbcOffsetBackingStore;
import io.debezium.storage.jdbc.offset.JdbcOffsetBackingStoreConfig;
import io.outboxrelay.relay.failure.ErrorClassifier;
import java.nio.ByteBuffer;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.runtime.WorkerConfig;
import org.apache.kafka.connect.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Debezium's JDBC offset store, with every position commit fenced by the leader's epoch: in the
 * same transaction as the position, {@code UPDATE <leases> SET renewed_at = NOW(6) WHERE resource =
 * ? AND holder = ? AND epoch = ?}, and a rollback when no row matched. A relay that lost its
 * leadership (another relay took it, raising the epoch) therefore cannot move the position,
 * whatever it still has in flight. The row lock taken by that update also orders the commit against
 * a takeover: a standby's acquisition waits for it, and a commit after the acquisition finds the
 * new epoch. The update is the transaction's last statement before the commit, so that a leader
 * frozen in the middle of a write holds that lock, and the takeover with it, only if it froze in
 * that last round trip; on MariaDB the server then ends the frozen session after half of {@code
 * cdc.leader.lease} ({@link io.outboxrelay.relay.source.IdleTransactionBound}), rolling the write
 * back and freeing the row.
 *
 * <p>Several relays of one database share the offsets table, each under its own key ({@link
 * OffsetKey}); Debezium's store loads every row at start and its commit deletes every row of the
 * table and re-inserts what it holds, so each relay would delete the positions the others committed
 * since it started (and those stored by {@code handoff --to cdc} or {@code position import}). This
 * store keeps only the relay's own key of what Debezium loaded, and its commit deletes and inserts
 * only rows of that key.
 *
 * <p>Configured by the engine from {@code offset.storage.jdbc.*}, plus the {@code
 * offset.storage.jdbc.lease.*} keys of {@link #configure(Properties, String, String, String, long,
 * String, String)}. Reads, table creation and loading are Debezium's own.
 *
 * <p>Writes are behind the engine, not in its way: {@link #set} takes the new position and returns
 * at once, and the store's single executor thread writes the newest position it holds, one write at
 * a time (positions that arrive while a write runs are merged into the next one). The engine calls
 * {@code set} only for events Kafka has acknowledged, so the position still never runs ahead of
 * Kafka; what a crash can cost is the position of the write in progress, i.e. a few more events
 * published again. A durable transaction in the source database takes milliseconds to tens of
 * milliseconds under load; waiting for it on the engine's thread, every {@code
 * cdc.commit.interval}, stalled publishing for as long. {@link #stop} waits for the last write, so
 * a clean stop commits the final position before the leadership is given up. A write that fails
 * (the database unreachable, the leadership taken over) is logged in one line and the next position
 * is written again.
 */
public final class FencedOffsetBackingStore extends JdbcOffsetBackingStore {

  private static final String PREFIX = "offset.storage.jdbc.lease.";

  private static final Logger LOG = LoggerFactory.getLogger(FencedOffsetBackingStore.class);

  private final AtomicInteger insertSeq = new AtomicInteger();
  private final Object queue = new Object();
  private boolean writeQueued; // guarded by queue
  private String lastFailure; // the last write's failure, logged once; executor thread only
  private JdbcOffsetBackingStoreConfig storeConfig;
  private RetriableConnection writer;
  private String leaseTable;
  private String resource;
  private String holder;
  private long epoch;
  private String context;
  private String now = "NOW(6)"; // the database clock, as the source's dialect writes it
  private String relayName; // the engine's name, the first element of its offset key

  /** Created by the engine. */
  public FencedOffsetBackingStore() {}

  /**
   * Adds this store and its fence to the engine's properties.
   *
   * @param p the engine properties, with the {@code offset.storage.jdbc.*} connection keys
   * @param leaseTable the leases table
   * @param resource the leadership key
   * @param holder this process
   * @param epoch the epoch of the term this engine publishes in
   * @param context the log prefix
   * @param now the database clock in SQL ({@code SqlDialect.now()})
   */
  public static void configure(
      Properties p,
      String leaseTable,
      String resource,
      String holder,
      long epoch,
      String context,
      String now) {
    p.setProperty("offset.storage", FencedOffsetBackingStore.class.getName());
    p.setProperty(PREFIX + "table", leaseTable);
    p.setProperty(PREFIX + "resource", resource);
    p.setProperty(PREFIX + "holder", holder);
    p.setProperty(PREFIX + "epoch", String.valueOf(epoch));
    p.setProperty(PREFIX + "context", context);
    p.setProperty(PREFIX + "now", now);
  }

  @Override
  public void configure(WorkerConfig config) {
    super.configure(config);
    Map<String, String> originals = config.originalsStrings();
    leaseTable = required(originals, "table");
    resource = required(originals, "resource");
    holder = required(originals, "holder");
    epoch = Long.parseLong(required(originals, "epoch"));
    context = originals.getOrDefault(PREFIX + "context", "relay");
    now = originals.getOrDefault(PREFIX + "now", now);
    relayName = originals.get("name");
    if (relayName == null) {
      throw new IllegalStateException("missing the engine's name, which keys its position");
    }
    storeConfig = new JdbcOffsetBackingStoreConfig(Configuration.from(originals));
    try {
      writer =
          new RetriableConnection(
              storeConfig.getJdbcUrl(),
              storeConfig.getUser(),
              storeConfig.getPassword(),
              storeConfig.getWaitRetryDelay(),
              storeConfig.getMaxRetryCount());
    } catch (SQLException e) {
      throw new IllegalStateException("cannot connect the position store: " + e.getMessage(), e);
    }
  }

  private static String required(Map<String, String> originals, String key) {
    String v = originals.get(PREFIX + key);
    if (v == null) {
      throw new IllegalStateException("missing " + PREFIX + key);
    }
    return v;
  }

  /**
   * Starts Debezium's store (it creates the table when missing and loads every row), then forgets
   * the rows of other relays: they are not this relay's to read, nor to write back.
   */
  @Override
  public synchronized void start() {
    super.start();
    data.keySet().removeIf(key -> !OffsetKey.belongsTo(key, relayName));
  }

  @Override
  protected void save() {
    try {
      writer.executeWithRetry(
          c -> {
            // Debezium's save deletes every row of the table: only this relay's rows go here.
            OffsetKey.deleteRows(c, storeConfig.getTableName(), relayName);
            for (Map.Entry<String, String> entry : data.entrySet()) {
              try (PreparedStatement insert = c.prepareStatement(storeConfig.getTableInsert())) {
                insert.setString(1, UUID.randomUUID().toString());
                insert.setString(2, entry.getKey());
                insert.setString(3, entry.getValue());
                insert.setTimestamp(4, new Timestamp(System.currentTimeMillis()));
                insert.setInt(5, insertSeq.incrementAndGet());
                insert.executeUpdate();
              }
            }
            // The leadership row is locked last, one round trip before the commit: a standby's
            // acquisition waits on that lock, so a leader frozen (SIGSTOP, a long pause) between
            // this update and its commit holds the takeover back until it wakes, or on MariaDB
            // until the server ends its idle transaction (half of {@code cdc.leader.lease}).
            try (PreparedStatement fence =
                c.prepareStatement(
                    "UPDATE "
                        + leaseTable
                        + " SET renewed_at = "
                        + now
                        + " WHERE resource = ? AND holder = ? AND epoch = ?")) {
              fence.setString(1, resource);
              fence.setString(2, holder);
              fence.setLong(3, epoch);
              if (fence.executeUpdate() == 0) {
                c.rollback();
                // Not an SQLException: Debezium's connection would retry that forever.
                throw new PositionFencedException(
                    "the position was not committed: the lease of "
                        + resource
                        + " is no longer held by this relay in epoch "
                        + epoch
                        + " (another relay took it over)");
              }
            }
            c.commit();
          },
          "saving the position",
          true);
    } catch (SQLException e) {
      throw new ConnectException(e);
    }
  }

  /**
   * Takes a new position and queues its write; returns at once, completed.
   *
   * @param values the position, by partition key
   * @param callback told at once that the position was taken
   * @return a completed future
   */
  @Override
  public Future<Void> set(Map<ByteBuffer, ByteBuffer> values, Callback<Void> callback) {
    for (Map.Entry<ByteBuffer, ByteBuffer> entry : values.entrySet()) {
      if (entry.getKey() != null) {
        data.put(fromByteBuffer(entry.getKey()), fromByteBuffer(entry.getValue()));
      }
    }
    synchronized (queue) {
      if (!writeQueued) {
        writeQueued = true;
        executor.execute(this::writeNewest);
      }
    }
    if (callback != null) {
      callback.onCompletion(null, null);
    }
    return CompletableFuture.completedFuture(null);
  }

  /**
   * Reads positions from memory, at once. Debezium's store reads on its executor thread, which here
   * also writes, so a read would wait for the write in progress and its retries: with the database
   * silent (a lost network path) that is the position store's statement timeout on each of its
   * attempts, minutes. The task's stop reads the position (to confirm it to the replication slot),
   * and the engine's close, and with it the relay's leadership election, would wait that long. The
   * map holds every position {@link #set} took, which is what a read after the write would see.
   *
   * @param keys the partition keys
   * @return a completed future with the position of each key that has one
   */
  @Override
  public Future<Map<ByteBuffer, ByteBuffer>> get(java.util.Collection<ByteBuffer> keys) {
    Map<ByteBuffer, ByteBuffer> result = new java.util.HashMap<>();
    for (ByteBuffer key : keys) {
      String value = key == null ? null : data.get(fromByteBuffer(key));
      result.put(key, value == null ? null : toByteBuffer(value));
    }
    return CompletableFuture.completedFuture(result);
  }

  /**
   * Waits until every position taken so far has been written, or its write has failed.
   *
   * @param timeout the longest wait
   * @return the failure of the last write, or empty when it succeeded
   * @throws InterruptedException when interrupted
   * @throws java.util.concurrent.TimeoutException when the writes take longer
   */
  public Optional<String> awaitWritten(Duration timeout)
      throws InterruptedException, java.util.concurrent.TimeoutException {
    try {
      return executor
          .submit(() -> Optional.ofNullable(lastFailure))
          .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause());
    }
  }

  private void writeNewest() {
    synchronized (queue) {
      writeQueued = false; // a position that arrives from now on needs another write
    }
    try {
      save();
      if (lastFailure != null) {
        LOG.info("[{}] position commits succeed again after: {}", context, lastFailure);
        lastFailure = null;
      }
    } catch (RuntimeException e) {
      String failure =
          e instanceof PositionFencedException
              ? e.getMessage()
              : "the position was not committed: " + ErrorClassifier.describe(e);
      if (!failure.equals(lastFailure)) {
        LOG.warn("[{}] {}; the next position is committed again", context, failure);
      }
      lastFailure = failure;
    }
  }

  @Override
  public synchronized void stop() {
    super.stop();
    try {
      if (writer != null) {
        writer.close();
      }
    } catch (SQLException ignored) {
      // closing: nothing left to write
    }
  }

  /** A position commit refused because the leadership moved to another relay. */
  public static final class PositionFencedException extends ConnectException {
    private static final long serialVersionUID = 1L;

    PositionFencedException(String message) {
      super(message);
    }
  }
}
