package io.outboxrelay.writer.spring;

import io.outboxrelay.router.OutboxColumn;
import io.outboxrelay.writer.OutboxWriter;
import io.outboxrelay.writer.PayloadSerializer;
import javax.sql.DataSource;
import org.springframework.beans.BeanWrapper;
import org.springframework.beans.BeanWrapperImpl;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.datasource.DataSourceUtils;

/**
 * Auto-configures an {@link OutboxWriter} from {@code outbox.writer.*} and an {@link Outbox} on the
 * application's single (or primary) {@code DataSource}. Each backs off when the application defines
 * its own bean of that type; a {@link PayloadSerializer} bean of the application is used as the
 * writer's serializer, otherwise {@link SerializerChoice} decides.
 *
 * <p>Runs after the DataSource auto-configuration of Spring Boot 4 and of Spring Boot 3, named by
 * class name so that one jar serves both.
 */
@AutoConfiguration(
    afterName = {
      "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
      "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration"
    })
@ConditionalOnClass({DataSource.class, DataSourceUtils.class, OutboxWriter.class})
@ConditionalOnSingleCandidate(DataSource.class)
@ConditionalOnProperty(prefix = "outbox.writer", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(OutboxWriterProperties.class)
public class OutboxAutoConfiguration {

  /** Creates the auto-configuration; Spring does. */
  public OutboxAutoConfiguration() {}

  /**
   * The writer, from the properties.
   *
   * @param properties {@code outbox.writer.*}
   * @param serializers the application's serializer bean, if any
   * @param beans where to look for the application's {@code ObjectMapper}
   * @return the writer
   */
  @Bean
  @ConditionalOnMissingBean
  public OutboxWriter outboxWriter(
      OutboxWriterProperties properties,
      ObjectProvider<PayloadSerializer> serializers,
      ListableBeanFactory beans) {
    OutboxWriter.Builder builder =
        OutboxWriter.builder()
            .table(properties.getTable())
            .traceContext(properties.isTraceContext());
    // Each column the writer writes from its property outbox.writer.columns.<name>: the
    // properties class holds them as literals for the metadata generator, the contract lists them.
    BeanWrapper columns = new BeanWrapperImpl(properties.getColumns());
    for (OutboxColumn column : OutboxColumn.values()) {
      if (column.written()) {
        String name = (String) columns.getPropertyValue(column.camelName());
        builder.column(column, column.required() ? name : optional(name));
      }
    }
    if (properties.getDialect() != null) {
      builder.dialect(properties.getDialect());
    }
    PayloadSerializer serializer =
        serializers.getIfAvailable(
            () -> PayloadSerializers.choose(properties.getSerializer(), beans));
    if (serializer != null) {
      builder.serializer(serializer);
    }
    return builder.build();
  }

  /**
   * The outbox on the application's {@code DataSource}.
   *
   * @param dataSource the application's single or primary data source
   * @param writer the writer
   * @return the outbox
   */
  @Bean
  @ConditionalOnMissingBean
  public Outbox outbox(DataSource dataSource, OutboxWriter writer) {
    return new SpringOutbox(dataSource, writer);
  }

  /**
   * Checks the outbox table once the application's singletons exist; see {@link OutboxTableCheck}.
   *
   * @param dataSource the application's single or primary data source
   * @param writer the writer
   * @return the check
   */
  @Bean
  public SmartInitializingSingleton outboxTableCheck(DataSource dataSource, OutboxWriter writer) {
    return new OutboxTableCheck(dataSource, writer);
  }

  private static String optional(String column) {
    return column == null || column.isBlank() ? null : column;
  }
}
