package io.outboxrelay.relay.publish;

import io.outboxrelay.router.RecordHeader;
import io.outboxrelay.router.RoutedRecord;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.AbstractRecords;
import org.apache.kafka.common.record.CompressionType;
import org.apache.kafka.common.record.RecordBatch;

/**
 * The producer's limit on one record, checked before the record is handed to the producer, so a
 * record the producer would refuse is known as poison before anything after it is sent.
 *
 * <p>The size is computed exactly as {@code KafkaProducer.send} computes it before refusing a
 * record: {@link AbstractRecords#estimateSizeInBytesUpperBound} for the current record format
 * (compression plays no part in it), compared with {@code max.request.size} and {@code
 * buffer.memory}. A broker may still refuse a smaller record (a topic's {@code max.message.bytes}
 * below the producer's limit); only the broker knows that.
 *
 * <p>Immutable and thread-safe.
 */
public final class RecordSizeLimit {

  private final int maxRequestSize;
  private final long bufferMemory;

  private RecordSizeLimit(int maxRequestSize, long bufferMemory) {
    this.maxRequestSize = maxRequestSize;
    this.bufferMemory = bufferMemory;
  }

  /**
   * The limit of a producer built from this configuration: the values given, or Kafka's defaults.
   *
   * @param producerConfig the complete producer configuration
   * @return the limit
   * @throws org.apache.kafka.common.config.ConfigException when the configuration is not valid
   */
  public static RecordSizeLimit of(Map<String, Object> producerConfig) {
    Map<String, Object> parsed = ProducerConfig.configDef().parse(producerConfig);
    return new RecordSizeLimit(
        (Integer) parsed.get(ProducerConfig.MAX_REQUEST_SIZE_CONFIG),
        (Long) parsed.get(ProducerConfig.BUFFER_MEMORY_CONFIG));
  }

  /**
   * The {@code batch.size} of a producer built from this configuration: the value given, or Kafka's
   * default.
   *
   * @param producerConfig the complete producer configuration
   * @return bytes
   */
  public static int batchSize(Map<String, Object> producerConfig) {
    return (Integer)
        ProducerConfig.configDef().parse(producerConfig).get(ProducerConfig.BATCH_SIZE_CONFIG);
  }

  /**
   * A limit with the given values, for tests.
   *
   * @param maxRequestSize the producer's {@code max.request.size}
   * @param bufferMemory the producer's {@code buffer.memory}
   * @return the limit
   */
  public static RecordSizeLimit of(int maxRequestSize, long bufferMemory) {
    return new RecordSizeLimit(maxRequestSize, bufferMemory);
  }

  /**
   * The record's size as the producer counts it against its limit.
   *
   * @param record the record
   * @return the size in bytes
   */
  public static int serializedSize(RoutedRecord record) {
    return AbstractRecords.estimateSizeInBytesUpperBound(
        RecordBatch.CURRENT_MAGIC_VALUE,
        CompressionType.NONE,
        record.key(),
        record.value(),
        kafkaHeaders(record));
  }

  /** The record's headers as Kafka's, for the size computations. */
  static Header[] kafkaHeaders(RoutedRecord record) {
    List<RecordHeader> headers = record.headers();
    Header[] kafkaHeaders = new Header[headers.size()];
    for (int i = 0; i < kafkaHeaders.length; i++) {
      RecordHeader h = headers.get(i);
      kafkaHeaders[i] =
          new org.apache.kafka.common.header.internals.RecordHeader(h.name(), h.value());
    }
    return kafkaHeaders;
  }

  /**
   * Checks a record against the limit.
   *
   * @param record the record
   * @return {@code null} when the producer accepts its size, otherwise the exception the producer
   *     would fail it with, saying which setting limits it
   */
  public RecordTooLargeException check(RoutedRecord record) {
    int size = serializedSize(record);
    if (size > maxRequestSize) {
      return new RecordTooLargeException(
          "the record is "
              + size
              + " bytes when serialized, more than the producer's max.request.size of "
              + maxRequestSize);
    }
    if (size > bufferMemory) {
      return new RecordTooLargeException(
          "the record is "
              + size
              + " bytes when serialized, more than the producer's buffer.memory of "
              + bufferMemory);
    }
    return null;
  }

  /**
   * The producer's {@code max.request.size}.
   *
   * @return bytes
   */
  public int maxRequestSize() {
    return maxRequestSize;
  }

  @Override
  public String toString() {
    return "RecordSizeLimit[max.request.size="
        + maxRequestSize
        + ", buffer.memory="
        + bufferMemory
        + "]";
  }
}
