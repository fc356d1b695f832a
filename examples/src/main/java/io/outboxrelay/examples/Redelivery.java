package io.outboxrelay.examples;

import io.outboxrelay.examples.Deliveries.Delivery;
import io.outboxrelay.testsupport.stack.ConsumedRecord;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Publishes a record again exactly as it was read (same partition, key, value and headers,
 * including the event id), which is what the relay does with the events it had sent but not yet
 * recorded as sent when it crashed. Stateless.
 */
final class Redelivery {

  /** Where the copy went. */
  record Sent(String topic, int partition, long offset) {

    /** Whether the consumer's delivery is of this copy. */
    boolean is(Delivery delivery) {
      return delivery.topic().equals(topic)
          && delivery.partition() == partition
          && delivery.offset() == offset;
    }
  }

  private Redelivery() {}

  /** Sends {@code original} again with a plain producer and waits for the broker's ack. */
  static Sent publishAgain(String bootstrapServers, ConsumedRecord original)
      throws InterruptedException, ExecutionException, TimeoutException {
    return publishAgain(bootstrapServers, original, Map.of());
  }

  /**
   * Sends {@code original} again with some header values replaced (as UTF-8 text), e.g. a new event
   * id, and waits for the broker's ack.
   */
  static Sent publishAgain(
      String bootstrapServers, ConsumedRecord original, Map<String, String> replacedHeaders)
      throws InterruptedException, ExecutionException, TimeoutException {
    List<Header> headers =
        original.headers().entrySet().stream()
            .map(
                h ->
                    (Header)
                        new RecordHeader(
                            h.getKey(),
                            replacedHeaders.containsKey(h.getKey())
                                ? replacedHeaders
                                    .get(h.getKey())
                                    .getBytes(java.nio.charset.StandardCharsets.UTF_8)
                                : h.getValue()))
            .toList();
    Map<String, Object> settings =
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
            ProducerConfig.CLIENT_ID_CONFIG, "demo-redelivery",
            ProducerConfig.ACKS_CONFIG, "all");
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(settings, new ByteArraySerializer(), new ByteArraySerializer())) {
      RecordMetadata sent =
          producer
              .send(
                  new ProducerRecord<>(
                      original.topic(),
                      original.partition(),
                      original.key(),
                      original.value(),
                      headers))
              .get(30, TimeUnit.SECONDS);
      return new Sent(sent.topic(), sent.partition(), sent.offset());
    }
  }
}
