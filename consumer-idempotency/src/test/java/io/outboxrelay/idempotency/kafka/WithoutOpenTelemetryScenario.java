package io.outboxrelay.idempotency.kafka;

import static org.awaitility.Awaitility.await;

import io.outboxrelay.idempotency.Counters;
import io.outboxrelay.idempotency.IdempotentProcessor;
import io.outboxrelay.idempotency.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * Runs the consumer loop on the records of a topic until {@code expectedProcessed} records were
 * applied, and returns its counters. Loaded by {@link ConsumerWithoutOpenTelemetryIT} in a class
 * loader that has no OpenTelemetry class: it speaks to the test through JDK types only ({@code
 * Function}, {@code Map}, {@code DataSource}).
 *
 * <p>Input: {@code bootstrapServers}, {@code topic}, {@code group} (strings), {@code dataSource},
 * {@code expectedProcessed} (a long). Output: {@code openTelemetryVisible} (whether this class's
 * loader can load {@code io.opentelemetry.api.OpenTelemetry}), {@code processed}, {@code
 * duplicates}, {@code failures}.
 */
public final class WithoutOpenTelemetryScenario
    implements Function<Map<String, Object>, Map<String, Object>> {

  @Override
  public Map<String, Object> apply(Map<String, Object> input) {
    Map<String, Object> result = new HashMap<>();
    result.put("openTelemetryVisible", openTelemetryVisible());
    String group = (String) input.get("group");
    IdempotentConsumer consumer =
        IdempotentConsumer.builder()
            .kafkaProperties(
                Map.of("bootstrap.servers", input.get("bootstrapServers"), "group.id", group))
            .topics((String) input.get("topic"))
            .processor(
                IdempotentProcessor.builder((DataSource) input.get("dataSource"), group).build())
            .handler(
                (record, connection) ->
                    TestDatabase.applyEffect(
                        connection,
                        new String(
                            record.headers().lastHeader("id").value(), StandardCharsets.UTF_8),
                        1))
            .pollTimeout(Duration.ofMillis(100))
            .build();
    Thread loop = new Thread(consumer::run, "consumer-without-opentelemetry");
    loop.start();
    try {
      long expected = (Long) input.get("expectedProcessed");
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> consumer.counters().processed() == expected);
    } finally {
      consumer.close();
    }
    Counters counters = consumer.counters();
    result.put("processed", counters.processed());
    result.put("duplicates", counters.duplicates());
    result.put("failures", counters.failures());
    return result;
  }

  private boolean openTelemetryVisible() {
    try {
      Class.forName("io.opentelemetry.api.OpenTelemetry", false, getClass().getClassLoader());
      return true;
    } catch (ClassNotFoundException e) {
      return false;
    }
  }
}
