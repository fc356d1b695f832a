package io.outboxrelay.writer.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.outboxrelay.router.OutboxColumn;
import io.outboxrelay.writer.spring.metrics.OutboxMetricsAutoConfiguration;
import io.outboxrelay.writer.spring.migration.OutboxMigrationsAutoConfiguration;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The build generates the configuration metadata that IDEs complete {@code outbox.writer.*} from,
 * and registers the auto-configurations.
 */
class ConfigurationMetadataTest {

  private static InputStream resource(String name) {
    InputStream in = OutboxAutoConfiguration.class.getClassLoader().getResourceAsStream(name);
    assertThat(in).as(name).isNotNull();
    return in;
  }

  @Test
  void listsEveryKeyWithItsTypeDescriptionAndDefault() throws Exception {
    JsonNode metadata;
    try (InputStream in = resource("META-INF/spring-configuration-metadata.json")) {
      metadata = new ObjectMapper().readTree(in);
    }
    Map<String, JsonNode> properties = new HashMap<>();
    metadata.get("properties").forEach(p -> properties.put(p.get("name").asText(), p));
    // @IdempotentListener's keys are checked beside it.
    properties.keySet().removeIf(name -> name.startsWith("outbox.consumer."));

    List<String> keys =
        new ArrayList<>(
            List.of(
                "outbox.writer.enabled",
                "outbox.writer.table",
                "outbox.writer.trace-context",
                "outbox.writer.serializer",
                "outbox.writer.dialect",
                "outbox.migrations.enabled",
                "outbox.migrations.outbox-table",
                "outbox.migrations.processed-events"));
    // outbox.writer.columns.<name>: one per column the writer writes, with its default.
    for (OutboxColumn column : OutboxColumn.values()) {
      if (column.written()) {
        String key =
            "outbox.writer.columns."
                + column.camelName().replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT);
        keys.add(key);
        assertThat(properties.get(key)).as(key).isNotNull();
        assertThat(properties.get(key).get("defaultValue").asText())
            .isEqualTo(column.defaultName());
      }
    }
    assertThat(keys).contains("outbox.writer.columns.event-id", "outbox.writer.columns.headers");
    assertThat(properties).containsOnlyKeys(keys);
    assertThat(properties.values())
        .allSatisfy(p -> assertThat(p.path("description").asText()).isNotBlank());
    assertThat(properties.get("outbox.writer.table").get("defaultValue").asText())
        .isEqualTo("outbox_events");
    assertThat(properties.get("outbox.writer.columns.headers").get("defaultValue").asText())
        .isEqualTo("headers");
    assertThat(properties.get("outbox.writer.serializer").get("type").asText())
        .isEqualTo(SerializerChoice.class.getName());
    assertThat(properties.get("outbox.migrations.enabled").get("defaultValue").asBoolean())
        .isFalse();
  }

  @Test
  void registersTheAutoConfiguration() throws Exception {
    try (InputStream in =
        resource(
            "META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports")) {
      assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8).lines())
          .contains(
              OutboxAutoConfiguration.class.getName(),
              OutboxMigrationsAutoConfiguration.class.getName(),
              OutboxMetricsAutoConfiguration.class.getName(),
              io.outboxrelay.idempotency.spring.IdempotentListenerAutoConfiguration.class
                  .getName());
    }
  }
}
