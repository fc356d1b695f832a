package io.outboxrelay.writer.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.idempotency.spring.IdempotentListenerProperties;
import io.outboxrelay.router.ColumnMapping;
import io.outboxrelay.router.OutboxColumn;
import io.outboxrelay.router.OutboxHeaders;
import java.beans.PropertyDescriptor;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.BeanWrapper;
import org.springframework.beans.BeanWrapperImpl;

/**
 * The starter's defaults are the outbox contract's, defined by the router. They are literals in the
 * properties classes only because Spring's metadata generator reads defaults from literals.
 */
class OutboxWriterPropertiesTest {

  @Test
  void theWritersDefaultsAreTheRoutersColumnMapping() {
    OutboxWriterProperties properties = new OutboxWriterProperties();
    OutboxWriterProperties.Columns columns = properties.getColumns();
    ColumnMapping contract = ColumnMapping.DEFAULT;

    assertThat(properties.getTable()).isEqualTo(ColumnMapping.DEFAULT_TABLE);
    // One property per column the writer writes, named as OutboxAutoConfiguration reads it.
    BeanWrapper bean = new BeanWrapperImpl(columns);
    List<String> written = new ArrayList<>();
    for (OutboxColumn column : OutboxColumn.values()) {
      if (column.written()) {
        written.add(column.camelName());
        assertThat(bean.getPropertyValue(column.camelName()))
            .as(column.name())
            .isEqualTo(contract.column(column));
      }
    }
    assertThat(bean.getPropertyDescriptors())
        .extracting(PropertyDescriptor::getName)
        .containsExactlyInAnyOrderElementsOf(concat(written, "class"));
    assertThat(columns.getEventId()).isEqualTo("event_id");
    assertThat(columns.getHeaders()).isEqualTo("headers");
  }

  private static List<String> concat(List<String> names, String name) {
    List<String> all = new ArrayList<>(names);
    all.add(name);
    return all;
  }

  @Test
  void theConsumersHeaderDefaultsAreTheRelaysHeaderNames() {
    IdempotentListenerProperties properties = new IdempotentListenerProperties();

    assertThat(properties.getIdHeader()).isEqualTo(OutboxHeaders.ID);
    assertThat(properties.getVersionHeader()).isEqualTo(OutboxHeaders.AGGREGATE_VERSION);
  }
}
