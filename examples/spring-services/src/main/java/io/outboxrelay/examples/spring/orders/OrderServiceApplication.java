package io.outboxrelay.examples.spring.orders;

import io.outboxrelay.examples.spring.InMemoryTracing;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Import;
import org.springframework.data.jpa.repository.config.EnableJpaRepositories;

/**
 * The order service: {@link OrderService} writes an order with Spring Data JPA and its event with
 * the starter's {@code Outbox} bean, in one Spring-managed transaction. Its own table comes from
 * its Flyway ({@code db/orders}), the outbox table from the starter's shipped migrations ({@code
 * outbox.migrations.enabled=true}). Spans of its requests go to an in-memory exporter, for the demo
 * to show; the writer stores the current span's {@code traceparent} with each event.
 */
@SpringBootApplication
@EnableJpaRepositories
@Import(InMemoryTracing.class)
public class OrderServiceApplication {}
