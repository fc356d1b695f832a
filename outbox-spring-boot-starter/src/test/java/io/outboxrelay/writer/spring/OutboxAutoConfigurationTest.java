package io.outboxrelay.writer.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outboxrelay.testsupport.database.SimpleDataSource;
import io.outboxrelay.writer.NewEvent;
import io.outboxrelay.writer.OutboxWriter;
import javax.sql.DataSource;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.transaction.IllegalTransactionStateException;
import org.springframework.util.ClassUtils;

/** Which beans the auto-configuration makes, and when it backs off; no database is reached. */
class OutboxAutoConfigurationTest {

  private static DataSource unreachable() {
    return new SimpleDataSource("jdbc:mariadb://127.0.0.1:1/none", "u", "p");
  }

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(OutboxAutoConfiguration.class));

  @Test
  void createsAnOutboxAndAWriterForTheApplicationsDataSource() {
    runner
        .withBean(DataSource.class, OutboxAutoConfigurationTest::unreachable)
        .run(
            context -> {
              assertThat(context).hasSingleBean(Outbox.class).hasSingleBean(OutboxWriter.class);
              assertThat(context.getBean(OutboxWriterProperties.class).getTable())
                  .isEqualTo("outbox_events");
            });
  }

  @Test
  void refusesAnAppendOutsideATransactionBeforeReachingTheDatabase() {
    runner
        .withBean(DataSource.class, OutboxAutoConfigurationTest::unreachable)
        .run(
            context ->
                assertThatThrownBy(
                        () ->
                            context
                                .getBean(Outbox.class)
                                .append(NewEvent.of("order", "o-1", "OrderPaid", "{}")))
                    .isInstanceOf(IllegalTransactionStateException.class)
                    .hasMessageContaining("@Transactional"));
  }

  @Test
  void backsOffWithoutADataSource() {
    runner.run(context -> assertThat(context).doesNotHaveBean(Outbox.class));
  }

  @Test
  void backsOffWithTwoDataSourcesAndNoPrimary() {
    runner
        .withBean("one", DataSource.class, OutboxAutoConfigurationTest::unreachable)
        .withBean("two", DataSource.class, OutboxAutoConfigurationTest::unreachable)
        .run(context -> assertThat(context).doesNotHaveBean(Outbox.class));
  }

  @Test
  void usesThePrimaryOfTwoDataSources() {
    runner
        .withBean("one", DataSource.class, OutboxAutoConfigurationTest::unreachable)
        .withBean(
            "two",
            DataSource.class,
            OutboxAutoConfigurationTest::unreachable,
            definition -> definition.setPrimary(true))
        .run(context -> assertThat(context).hasSingleBean(Outbox.class));
  }

  @Test
  void backsOffWhenDisabled() {
    runner
        .withBean(DataSource.class, OutboxAutoConfigurationTest::unreachable)
        .withPropertyValues("outbox.writer.enabled=false")
        .run(context -> assertThat(context).doesNotHaveBean(Outbox.class));
  }

  @Test
  void backsOffForTheApplicationsOwnOutbox() {
    Outbox own = events -> java.util.List.of();
    runner
        .withBean(DataSource.class, OutboxAutoConfigurationTest::unreachable)
        .withBean(Outbox.class, () -> own)
        .run(context -> assertThat(context.getBean(Outbox.class)).isSameAs(own));
  }

  @Test
  void failsAtStartupOnAnInvalidTableName() {
    runner
        .withBean(DataSource.class, OutboxAutoConfigurationTest::unreachable)
        .withPropertyValues("outbox.writer.table=outbox; DROP TABLE orders")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("table must be a plain SQL identifier"));
  }

  @Test
  void failsAtStartupWhenAJacksonMapperIsAskedForAndThereIsNone() {
    runner
        .withBean(DataSource.class, OutboxAutoConfigurationTest::unreachable)
        .withPropertyValues("outbox.writer.serializer=jackson3")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("tools.jackson.databind.ObjectMapper bean"));
  }

  @Test
  void takesTheApplicationsJackson3MapperWhenAsked() {
    Assumptions.assumeTrue(
        ClassUtils.isPresent(PayloadSerializers.JACKSON3_MAPPER, null),
        "Jackson 3 is on the classpath (Spring Boot 4)");
    runner
        .withBean(DataSource.class, OutboxAutoConfigurationTest::unreachable)
        .withBean(
            tools.jackson.databind.ObjectMapper.class, tools.jackson.databind.ObjectMapper::new)
        .withPropertyValues("outbox.writer.serializer=jackson3")
        .run(context -> assertThat(context).hasSingleBean(Outbox.class));
  }
}
