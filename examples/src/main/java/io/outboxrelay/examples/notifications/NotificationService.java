package io.outboxrelay.examples.notifications;

import io.opentelemetry.api.OpenTelemetry;
import io.outboxrelay.idempotency.Counters;
import io.outboxrelay.idempotency.GapPolicy;
import io.outboxrelay.idempotency.IdempotentProcessor;
import io.outboxrelay.idempotency.kafka.ConsumerListener;
import io.outboxrelay.idempotency.kafka.FailurePolicy;
import io.outboxrelay.idempotency.kafka.IdempotentConsumer;
import io.outboxrelay.idempotency.kafka.RetryPolicy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;

/**
 * The notification service: consumes the order service's events from Kafka and applies them to its
 * own database with {@link OrderEventHandler}, exactly once per event, through an {@link
 * IdempotentConsumer}. Each event's id goes into {@code processed_events} in the same transaction
 * as the change, and the Kafka offset is committed only after that transaction, so an event
 * delivered again (the relay re-publishing after a crash, this consumer restarting before its
 * offset commit) is recognised and skipped. Each order's last applied version (the record's {@code
 * aggregate_version} header) is kept too, so an old event of an order that arrives under another id
 * (a replay, a stale copy) is skipped as {@code STALE}. Each event is applied in an OpenTelemetry
 * CONSUMER span whose parent is the record's {@code traceparent} header: the span of the order
 * service's request that wrote the event.
 *
 * <pre>{@code
 * try (NotificationService service =
 *     NotificationService.start(dataSource, "kafka:9092", "outbox.event.order", "notifications",
 *         openTelemetry, new ConsumerListener() {})) {
 *   ...
 * }
 * }</pre>
 *
 * <p>The consumer loop runs on one thread of its own; the methods may be called from any thread.
 */
public final class NotificationService implements AutoCloseable {

  private final DataSource database;
  private final IdempotentConsumer consumer;
  private final Thread loop;
  private final AtomicReference<Throwable> failure = new AtomicReference<>();

  private NotificationService(DataSource database, IdempotentConsumer consumer) {
    this.database = database;
    this.consumer = consumer;
    this.loop = new Thread(this::runLoop, "notification-service");
  }

  /**
   * Starts consuming on a thread of its own.
   *
   * @param database the service's own database: {@code config/examples/notifications-schema.sql}
   *     and {@code config/mysql/processed-events.sql}; not {@code null}
   * @param bootstrapServers the Kafka brokers
   * @param topic the order service's event topic, e.g. {@code outbox.event.order}
   * @param groupId the Kafka consumer group, also the name under which events count as processed
   * @param openTelemetry where the consumer spans go; not {@code null}
   * @param listener told about every record's outcome; not {@code null}
   * @return the running service
   * @throws IllegalArgumentException if Kafka refuses the settings
   */
  public static NotificationService start(
      DataSource database,
      String bootstrapServers,
      String topic,
      String groupId,
      OpenTelemetry openTelemetry,
      ConsumerListener listener) {
    Objects.requireNonNull(database, "database");
    Objects.requireNonNull(openTelemetry, "openTelemetry");
    IdempotentConsumer consumer =
        IdempotentConsumer.builder()
            .kafkaProperties(
                Map.of(
                    "bootstrap.servers", bootstrapServers,
                    "group.id", groupId,
                    "client.id", groupId))
            .topics(topic)
            // The version check: an event older than the order's last applied version is
            // skipped as STALE; one that skips a version is retried until the gap is filled.
            .processor(
                IdempotentProcessor.builder(database, groupId)
                    .versionCheck(GapPolicy.REJECT)
                    .build())
            .handler(new OrderEventHandler())
            .retryPolicy(RetryPolicy.defaults())
            // A record this service cannot apply stops it: the demo must not go on past one.
            // A production service would rather dead-letter it and keep going.
            .failurePolicy(FailurePolicy.stop())
            .listener(listener)
            .openTelemetry(openTelemetry)
            .build();
    NotificationService service = new NotificationService(database, consumer);
    service.loop.start();
    return service;
  }

  private void runLoop() {
    try {
      consumer.run();
    } catch (RuntimeException e) { // the loop has logged why it stopped
      failure.set(e);
    }
  }

  /**
   * Why the consumer loop ended, if it ended with an exception (e.g. {@link
   * io.outboxrelay.idempotency.kafka.ConsumerStoppedException}).
   *
   * @return the failure, empty while the loop runs or after a clean stop
   */
  public Optional<Throwable> failure() {
    return Optional.ofNullable(failure.get());
  }

  /**
   * What the consumer did so far.
   *
   * @return processed, duplicates, failures and more since the start
   */
  public Counters counters() {
    return consumer.counters();
  }

  /**
   * Reads the service's view of its customers' orders.
   *
   * @return every order it knows, by order id
   * @throws SQLException if the database fails
   */
  public List<CustomerOrder> customerOrders() throws SQLException {
    List<CustomerOrder> orders = new ArrayList<>();
    try (Connection c = database.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT o.order_id, o.customer_id, o.status, o.paid_at,"
                    + " (SELECT COUNT(*) FROM notifications n WHERE n.order_id = o.order_id)"
                    + " FROM customer_orders o ORDER BY o.order_id");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        Timestamp paidAt = rs.getTimestamp(4);
        orders.add(
            new CustomerOrder(
                rs.getString(1),
                rs.getString(2),
                rs.getString(3),
                paidAt == null ? null : paidAt.toInstant(),
                rs.getInt(5)));
      }
    }
    return orders;
  }

  /**
   * Stops the consumer: it finishes the record at hand, commits its offsets and closes. Idempotent.
   */
  @Override
  public void close() {
    consumer.close();
    try {
      loop.join(Duration.ofSeconds(30).toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
