package io.outboxrelay.bench;

import io.outboxrelay.testsupport.outbox.TestEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/** Realistic outbox events: order-like JSON payloads of about 300 bytes over many aggregates. */
final class BenchEvents {

  static final List<String> AGGREGATE_TYPES = List.of("order", "payment", "shipment");
  static final int AGGREGATES = 2_000;

  private BenchEvents() {}

  /** Event {@code n}: the aggregate types in turn, a random one of 2,000 aggregates of each. */
  static TestEvent next(long n) {
    return next(n, AGGREGATE_TYPES.get((int) (n % AGGREGATE_TYPES.size())), AGGREGATES);
  }

  /** Event {@code n} of a random one of {@code aggregates} aggregates of {@code type}. */
  static TestEvent next(long n, String type, int aggregates) {
    ThreadLocalRandom r = ThreadLocalRandom.current();
    String aggregateId = type + "-" + r.nextInt(aggregates);
    String payload =
        String.format(
            Locale.ROOT,
            "{\"id\":\"%s\",\"customerId\":\"c-%d\",\"amount\":%d.%02d,\"currency\":\"EUR\","
                + "\"items\":[{\"sku\":\"SKU-%d\",\"qty\":%d,\"price\":%d.50},{\"sku\":\"SKU-%d\","
                + "\"qty\":1,\"price\":%d.99}],\"status\":\"CREATED\",\"note\":\"benchmark event"
                + " %d\",\"createdAt\":\"2026-11-29T10:15:30.123456Z\"}",
            aggregateId,
            r.nextInt(100_000),
            r.nextInt(1000),
            r.nextInt(100),
            r.nextInt(10_000),
            1 + r.nextInt(5),
            r.nextInt(100),
            r.nextInt(10_000),
            r.nextInt(100),
            n);
    return new TestEvent(
        UUID.randomUUID().toString(), type, aggregateId, "OrderCreated", n, payload);
  }

  static List<TestEvent> batch(long from, int size) {
    List<TestEvent> events = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      events.add(next(from + i));
    }
    return events;
  }
}
