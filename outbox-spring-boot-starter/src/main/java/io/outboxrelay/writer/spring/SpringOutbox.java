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

  static final String OTHER_RESOURCE =
      "outbox.append(...) was called in a transaction that holds no connection of the outbox's"
          + " DataSource (its connection is in auto-commit mode): the transaction manager in use"
          + " manages another resource; let the transaction run on the DataSource the outbox"
          + " writes to";

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
    if (!TransactionSynchronizationManager.isActualTransactionActive()) {
      throw new IllegalTransactionStateException(NO_TRANSACTION);
    }
    if (TransactionSynchronizationManager.isCurrentTransactionReadOnly()) {
      throw new IllegalTransactionStateException(READ_ONLY);
    }
    Connection connection = DataSourceUtils.getConnection(dataSource);
    try {
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
      DataSourceUtils.releaseConnection(connection, dataSource);
    }
  }

  @Override
  public String toString() {
    return "Outbox[" + writer + "]";
  }
}
