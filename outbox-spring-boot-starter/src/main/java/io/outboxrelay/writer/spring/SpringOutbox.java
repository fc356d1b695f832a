package io.outboxrelay.writer.spring;

import io.outboxrelay.writer.NewEvent;
import io.outboxrelay.writer.OutboxWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.support.SQLExceptionSubclassTranslator;
import org.springframework.transaction.IllegalTransactionStateException;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The {@link Outbox}: the writer on the connection that Spring has bound to the current transaction
 * for the data source. Thread-safe.
 */
final class SpringOutbox implements Outbox {

  static final String NO_TRANSACTION =
      "outbox.append(...) was called outside a transaction, so the event would not commit with the"
          + " business change: call it from a @Transactional method (or inside"
          + " TransactionTemplate.execute(...))";

  static final String READ_ONLY =
      "outbox.append(...) was called in a read-only transaction: use @Transactional without"
          + " readOnly = true for the method that writes events";

  static final String COMPLETED =
      "outbox.append(...) was called after the transaction's commit or rollback (from a"
          + " @TransactionalEventListener of phase AFTER_COMMIT, AFTER_ROLLBACK or AFTER_COMPLETION,"
          + " or an afterCompletion callback), where nothing commits any more, or in a transaction"
          + " without transaction synchronisation: append in the transaction itself (phase"
          + " BEFORE_COMMIT, or the @Transactional method), or start a new one with"
          + " @Transactional(propagation = Propagation.REQUIRES_NEW)";

  static final String OTHER_RESOURCE =
      "outbox.append(...) was called in a transaction that holds no connection of the outbox's"
          + " DataSource: the transaction manager in use manages another resource, so the event"
          + " would commit on its own or be lost; let the transaction run on a transaction manager"
          + " of the DataSource the outbox writes to (DataSourceTransactionManager,"
          + " JdbcTransactionManager or JpaTransactionManager)";

  private final DataSource dataSource;
  private final OutboxWriter writer;
  private final SQLExceptionSubclassTranslator translator = new SQLExceptionSubclassTranslator();

  SpringOutbox(DataSource dataSource, OutboxWriter writer) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.writer = Objects.requireNonNull(writer, "writer");
  }

  @Override
  public List<String> appendAll(List<NewEvent> events) {
    Objects.requireNonNull(events, "events");
    DataSource transactional = transactionalDataSource();
    Connection connection = DataSourceUtils.getConnection(transactional);
    try {
      // A pre-bound connection in auto-commit mode: a transaction of another resource met a
      // connection that JdbcTemplate fetched outside it, and each statement commits alone.
      if (connection.getAutoCommit()) {
        throw new IllegalTransactionStateException(OTHER_RESOURCE);
      }
      return writer.appendAll(connection, events);
    } catch (SQLException e) {
      DataAccessException translated = translator.translate("outbox append", null, e);
      throw translated != null
          ? translated
          : new UncategorizedSQLException("outbox append", null, e);
    } finally {
      DataSourceUtils.releaseConnection(connection, transactional);
    }
  }

  /**
   * The data source (this bean's, or one it wraps) whose connection the current, active, not yet
   * completed, read-write transaction has bound; refuses every other case before a connection is
   * fetched, since {@code DataSourceUtils} would otherwise hand out a fresh connection that nobody
   * commits.
   */
  private DataSource transactionalDataSource() {
    if (!TransactionSynchronizationManager.isActualTransactionActive()) {
      throw new IllegalTransactionStateException(NO_TRANSACTION);
    }
    // Spring clears the synchronisations before it calls afterCompletion (where
    // @TransactionalEventListener's AFTER_* phases run) and unbinds the connection only after: the
    // transaction still looks active there, but its commit is over.
    if (!TransactionSynchronizationManager.isSynchronizationActive()) {
      throw new IllegalTransactionStateException(COMPLETED);
    }
    if (TransactionSynchronizationManager.isCurrentTransactionReadOnly()) {
      throw new IllegalTransactionStateException(READ_ONLY);
    }
    DataSource bound = Bindings.boundDataSource(dataSource);
    if (bound == null) {
      throw new IllegalTransactionStateException(OTHER_RESOURCE);
    }
    return bound;
  }

  @Override
  public String toString() {
    return "Outbox[" + writer + "]";
  }
}
