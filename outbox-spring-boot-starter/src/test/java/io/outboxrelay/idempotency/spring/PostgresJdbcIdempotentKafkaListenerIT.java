package io.outboxrelay.idempotency.spring;

import io.outboxrelay.writer.spring.StarterDatabase;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * {@link IdempotentListener} on PostgreSQL (the machine's local service) with JdbcTemplate under
 * the DataSource's transaction manager (Spring Boot's JdbcTransactionManager), without JPA.
 */
class PostgresJdbcIdempotentKafkaListenerIT extends AbstractIdempotentKafkaListenerIT {

  @Override
  protected StarterDatabase newDatabase() {
    return StarterDatabase.postgres();
  }

  @Override
  protected Class<?> application() {
    return JdbcPaymentApplication.class;
  }

  @Override
  protected Class<? extends PlatformTransactionManager> transactionManager() {
    return DataSourceTransactionManager.class;
  }
}
