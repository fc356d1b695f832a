package io.outboxrelay.relay.source.polling;

import java.sql.SQLException;

/**
 * Opens an {@link OutboxStore} on a connection of its own: for a worker (again after a failure),
 * the lease keeper and retention. Implementations are thread-safe; each store is not.
 */
@FunctionalInterface
interface StoreFactory {

  /**
   * Connects and opens a store.
   *
   * @return a store that owns its new connection
   * @throws SQLException when the database cannot be reached
   */
  OutboxStore open() throws SQLException;
}
