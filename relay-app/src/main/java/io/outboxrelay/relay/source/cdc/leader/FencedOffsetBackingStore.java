package io.outboxrelay.relay.source.cdc.leader;

import io.debezium.config.Configuration;
import io.debezium.storage.jdbc.RetriableConnection;
import io.debezium.storage.jdbc.offset.JdbcOffsetBackingStore;
import io.debezium.storage.jdbc.offset.JdbcOffsetBackingStoreConfig;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.runtime.WorkerConfig;

/**
 * Debezium's JDBC offset store, with every position commit fenced by the leader's epoch: in the
 * same transaction as the position, {@code UPDATE <leases> SET renewed_at = NOW(6) WHERE resource =
 * ? AND holder = ? AND epoch = ?}, and a rollback when no row matched. A relay that lost its lease
 * (another relay took it, raising the epoch) therefore cannot move the position, whatever it still
 * has in flight. The row lock taken by that update also orders the commit against a takeover: a
 * standby's acquisition waits for it, and a commit after the acquisition finds the new epoch.
 *
 * <p>Configured by the engine from {@code offset.storage.jdbc.*}, plus the {@code
 * offset.storage.jdbc.lease.*} keys of {@link #configure(Properties, String, String, String,
 * long)}. Reads, table creation and loading are Debezium's own. Its writes run on the store's
 * single executor thread.
 */
public final class FencedOffsetBackingStore extends JdbcOffsetBackingStore {

  private static final String PREFIX = "offset.storage.jdbc.lease.";

  private final AtomicInteger insertSeq = new AtomicInteger();
  private JdbcOffsetBackingStoreConfig storeConfig;
  private RetriableConnection writer;
  private String leaseTable;
  private String resource;
  private String holder;
  private long epoch;

  /** Created by the engine. */
  public FencedOffsetBackingStore() {}

  /**
   * Adds this store and its fence to the engine's properties.
   *
   * @param p the engine properties, with the {@code offset.storage.jdbc.*} connection keys
   * @param leaseTable the lease table
   * @param resource the lease key
   * @param holder this process
   * @param epoch the epoch of the term this engine publishes in
   */
  public static void configure(
      Properties p, String leaseTable, String resource, String holder, long epoch) {
    p.setProperty("offset.storage", FencedOffsetBackingStore.class.getName());
    p.setProperty(PREFIX + "table", leaseTable);
    p.setProperty(PREFIX + "resource", resource);
    p.setProperty(PREFIX + "holder", holder);
    p.setProperty(PREFIX + "epoch", String.valueOf(epoch));
  }

  @Override
  public void configure(WorkerConfig config) {
    super.configure(config);
    Map<String, String> originals = config.originalsStrings();
    leaseTable = required(originals, "table");
    resource = required(originals, "resource");
    holder = required(originals, "holder");
    epoch = Long.parseLong(required(originals, "epoch"));
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

  @Override
  protected void save() {
    try {
      writer.executeWithRetry(
          c -> {
            try (PreparedStatement fence =
                c.prepareStatement(
                    "UPDATE "
                        + leaseTable
                        + " SET renewed_at = NOW(6) WHERE resource = ? AND holder = ? AND epoch"
                        + " = ?")) {
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
            try (PreparedStatement delete = c.prepareStatement(storeConfig.getTableDelete())) {
              delete.executeUpdate();
            }
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
            c.commit();
          },
          "saving the position",
          true);
    } catch (SQLException e) {
      throw new ConnectException(e);
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

  /** A position commit refused because the lease moved to another relay. */
  public static final class PositionFencedException extends ConnectException {
    private static final long serialVersionUID = 1L;

    PositionFencedException(String message) {
      super(message);
    }
  }
}
