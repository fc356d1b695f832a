package io.outboxrelay.relay.source.cdc;

import io.outboxrelay.relay.StartupCheckException;
import io.outboxrelay.relay.config.RelayConfig;
import io.outboxrelay.relay.source.SourceConnections;
import io.outboxrelay.relay.source.SqlDialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;

/**
 * Opens the connections a CDC term uses beside Debezium's: to read and store its position, check
 * its slot, take over a slot, and run a first start. Each read on them waits for the database at
 * most {@link #socketTimeout}, as Debezium's own PostgreSQL connections do ({@link
 * PostgresReplication#SOCKET_TIMEOUT}).
 *
 * <p>Why: a term whose statement waits on a silent network path (packets dropped, no reset) cannot
 * end. The leadership renewals notice the loss within {@code cdc.leader.lease} and end the term,
 * but its thread stays in the read until TCP gives up (about 15 minutes on Linux), or for good when
 * something on the path keeps acknowledging, and the relay starts no new term meanwhile. With the
 * bound the statement fails, the term ends, and the next term starts once the database answers
 * again; what the failed term left unfinished (a first start's marker, an uncommitted position) is
 * what a kill would have left. Stateless.
 */
final class TermConnections {

  private TermConnections() {}

  /**
   * The longest a read on a term's connection waits: {@code debezium.driver.socketTimeout}
   * (seconds) when set on PostgreSQL, so that one setting bounds every connection of the term, and
   * {@link PostgresReplication#SOCKET_TIMEOUT} otherwise. Longer than any statement of a term that
   * would succeed: the first start's reads go by windows of rows.
   *
   * @param config the relay configuration
   * @return the bound
   */
  static Duration socketTimeout(RelayConfig config) {
    if (!SqlDialect.of(config.source().flavor()).hasBinlog()) {
      String seconds = config.cdc().debeziumOverrides().get("driver.socketTimeout");
      if (seconds != null) {
        try {
          long s = Long.parseLong(seconds.trim());
          if (s > 0) {
            return Duration.ofSeconds(s);
          }
        } catch (NumberFormatException e) {
          // Debezium refuses it at the engine's start, saying which setting it is.
        }
      }
    }
    return PostgresReplication.SOCKET_TIMEOUT;
  }

  /**
   * Opens a connection as the relay's user, bounded by {@link #socketTimeout}.
   *
   * @param config the relay configuration
   * @return the connection
   * @throws StartupCheckException when the configuration cannot work
   * @throws SQLException when the database cannot be reached
   */
  static Connection open(RelayConfig config) throws StartupCheckException, SQLException {
    return SourceConnections.open(config.source(), socketTimeout(config));
  }
}
