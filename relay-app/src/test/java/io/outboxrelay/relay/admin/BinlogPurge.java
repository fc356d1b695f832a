package io.outboxrelay.relay.admin;

import static org.awaitility.Awaitility.await;

import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import java.time.Duration;

/** Purges a test server's binlog, as an operator would, to make a stored position unreachable. */
final class BinlogPurge {

  private BinlogPurge() {}

  /**
   * Purges every binlog file before the current one and waits until only the current one is left.
   * MariaDB keeps a file until InnoDB has made its transactions durable (its binlog checkpoint),
   * and skips it with a warning until then, so the purge is repeated.
   *
   * @param db a database on the server
   * @return the current binlog file, the one left
   */
  static String allButCurrent(OutboxDatabase db) {
    String current = String.valueOf(db.adminQuery("SHOW MASTER STATUS"));
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              db.admin("PURGE BINARY LOGS TO '" + current + "'");
              return current.equals(String.valueOf(db.adminQuery("SHOW BINARY LOGS")));
            });
    return current;
  }
}
