package io.outboxrelay.writer.spring;

import javax.sql.DataSource;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Which data source a transaction manager has bound a connection for. Transaction managers bind
 * under the data source they were given, after unwrapping a {@code TransactionAwareDataSourceProxy}
 * ({@code DataSourceTransactionManager} and {@code JpaTransactionManager} both do), while the bean
 * the outbox writes to may be that proxy, a {@code LazyConnectionDataSourceProxy} or another {@link
 * DelegatingDataSource}: the data source and each one it wraps are looked up in turn. Stateless.
 * Public for the starter's other packages (the idempotent listener asks the same question); not an
 * API for applications.
 */
public final class Bindings {

  /** How many wrappers deep to look; real chains are one or two long. */
  private static final int MAX_DEPTH = 8;

  private Bindings() {}

  /**
   * The first of {@code dataSource} and the data sources it wraps for which the current thread has
   * a {@link ConnectionHolder} bound, or {@code null} if none has one.
   *
   * @param dataSource the data source to write to; not {@code null}
   * @return the data source the current transaction's connection is bound under, or {@code null}
   */
  public static DataSource boundDataSource(DataSource dataSource) {
    DataSource candidate = dataSource;
    for (int depth = 0; candidate != null && depth < MAX_DEPTH; depth++) {
      if (TransactionSynchronizationManager.getResource(candidate) instanceof ConnectionHolder) {
        return candidate;
      }
      candidate =
          candidate instanceof DelegatingDataSource delegating
              ? delegating.getTargetDataSource()
              : null;
    }
    return null;
  }
}
