package io.outboxrelay.idempotency.spring;

import io.outboxrelay.idempotency.EventRef;
import io.outboxrelay.idempotency.IdempotentProcessor;
import io.outboxrelay.idempotency.Outcome;
import io.outboxrelay.idempotency.kafka.PoisonRecordException;
import io.outboxrelay.idempotency.kafka.RecordEvents;
import io.outboxrelay.idempotency.kafka.RecordTracing;
import io.outboxrelay.writer.spring.Bindings;
import java.lang.reflect.UndeclaredThrowableException;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.support.SQLExceptionSubclassTranslator;
import org.springframework.kafka.support.Acknowledgment;
import org.springframework.transaction.IllegalTransactionStateException;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Wraps a listener container's message listener (an advice of its {@code adviceChain}): each
 * delivered record runs, inside its trace span, in a transaction of the application's transaction
 * manager that first admits the event ({@link IdempotentProcessor#admit}) on the connection bound
 * for the data source, then, only if it was admitted, calls the listener. An exception of the
 * listener, or of the commit, rolls the transaction back and propagates unchanged to the container,
 * whose error handler retries or recovers the record. Thread-safe: the threads of a concurrent
 * container share it, and each record's state lives in its own {@link Delivery}.
 */
final class IdempotentRecordAdvice implements MethodInterceptor {

  static final String OTHER_RESOURCE =
      "an @IdempotentListener's transaction holds no connection of the application's DataSource:"
          + " the transaction manager it runs on manages another resource, so the event id would"
          + " not commit with the listener's changes; set outbox.consumer.transaction-manager to the"
          + " bean name of a transaction manager of the DataSource (JpaTransactionManager,"
          + " DataSourceTransactionManager or JdbcTransactionManager)";

  private final IdempotentProcessor processor;
  private final IdempotentListenerCounters.GroupCounts counts;
  private final RecordEvents events;
  private final RecordTracing tracing;
  private final TransactionTemplate transactions;
  private final DataSource dataSource;
  private final SQLExceptionSubclassTranslator translator = new SQLExceptionSubclassTranslator();

  IdempotentRecordAdvice(
      IdempotentProcessor processor,
      IdempotentListenerCounters.GroupCounts counts,
      RecordEvents events,
      RecordTracing tracing,
      TransactionTemplate transactions,
      DataSource dataSource) {
    this.processor = processor;
    this.counts = counts;
    this.events = events;
    this.tracing = tracing;
    this.transactions = transactions;
    this.dataSource = dataSource;
  }

  @Override
  public Object invoke(MethodInvocation invocation) throws Throwable {
    Object[] arguments = invocation.getArguments();
    // The container calls one of the onMessage methods, record first; other calls (seek callbacks,
    // equals, ...) pass through.
    if (!invocation.getMethod().getName().equals("onMessage")
        || arguments.length == 0
        || !(arguments[0] instanceof ConsumerRecord<?, ?> record)) {
      return invocation.proceed();
    }
    Delivery delivery = new Delivery(invocation, record);
    Outcome outcome;
    try {
      outcome = tracing.process(record, delivery::run);
    } catch (RuntimeException | Error e) {
      counts.failed();
      throw e;
    }
    // The transaction committed: the outcome is final.
    counts.ended(outcome);
    switch (outcome) {
      case PROCESSED:
        return delivery.result;
      case DUPLICATE:
      case STALE:
        acknowledge(arguments);
        return null;
      case CONFLICT:
      default:
        throw PoisonRecordException.conflict(events.eventIdOrNull(record));
    }
  }

  /** With a manual ack mode the skipped listener cannot acknowledge the record: done for it. */
  private static void acknowledge(Object[] arguments) {
    for (Object argument : arguments) {
      if (argument instanceof Acknowledgment acknowledgment) {
        acknowledgment.acknowledge();
        return;
      }
    }
  }

  /** One record's way through the transaction; used by the delivering thread only. */
  private final class Delivery {

    private final MethodInvocation invocation;
    private final ConsumerRecord<?, ?> record;
    private Object result;

    Delivery(MethodInvocation invocation, ConsumerRecord<?, ?> record) {
      this.invocation = invocation;
      this.record = record;
    }

    /** Reads the event (a poison record fails here), then admits and applies it in one go. */
    Outcome run() {
      EventRef event = events.toEventRef(record, processor.checksConflicts());
      return transactions.execute(status -> admitAndApply(event));
    }

    private Outcome admitAndApply(EventRef event) {
      Outcome outcome = admit(event);
      if (outcome == Outcome.PROCESSED) {
        result = proceed();
      }
      return outcome;
    }

    private Outcome admit(EventRef event) {
      DataSource bound = Bindings.boundDataSource(dataSource);
      if (bound == null) {
        throw new IllegalTransactionStateException(OTHER_RESOURCE);
      }
      Connection connection = DataSourceUtils.getConnection(bound);
      try {
        return processor.admit(connection, event);
      } catch (SQLException e) {
        DataAccessException translated = translator.translate("admit event", null, e);
        throw translated != null
            ? translated
            : new UncategorizedSQLException("admit event", null, e);
      } finally {
        DataSourceUtils.releaseConnection(connection, bound);
      }
    }

    private Object proceed() {
      try {
        return invocation.proceed();
      } catch (RuntimeException | Error e) {
        throw e;
      } catch (Throwable checked) {
        // Message listeners declare no checked exception; one that slips through still rolls back.
        throw new UndeclaredThrowableException(checked);
      }
    }
  }
}
