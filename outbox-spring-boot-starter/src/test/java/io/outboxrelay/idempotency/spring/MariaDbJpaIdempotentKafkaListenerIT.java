package io.outboxrelay.idempotency.spring;

import io.outboxrelay.writer.spring.StarterDatabase;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * {@link IdempotentListener} on MariaDB (the private server of the local stack) with Spring Data
 * JPA repositories on Hibernate under JpaTransactionManager.
 */
class MariaDbJpaIdempotentKafkaListenerIT extends AbstractIdempotentKafkaListenerIT {

  @Override
  protected StarterDatabase newDatabase() {
    return StarterDatabase.mariaDb();
  }

  @Override
  protected Class<?> application() {
    return PaymentApplication.class;
  }

  @Override
  protected Class<? extends PlatformTransactionManager> transactionManager() {
    return JpaTransactionManager.class;
  }
}
