package io.outboxrelay.relay.publish;

import io.outboxrelay.router.RoutedRecord;
import java.nio.ByteBuffer;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.CompressionType;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MemoryRecordsBuilder;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.TimestampType;

/**
 * The exact size of a record as a batch of its own, compressed with the producer's codec when it
 * compresses: what a broker compares with a topic's {@code max.message.bytes} (the broker checks
 * each batch as it arrives, compressed).
 *
 * <p>The batch is built as the producer builds it ({@link MemoryRecords#builder} with the current
 * record format, the codec and its level from the producer's configuration, the record's key, value
 * and headers); the fields the producer fills in later (producer id, epoch, sequence, timestamps)
 * have fixed sizes, so the result is the size of the batch the producer would send. Building the
 * batch costs a copy of the record (and CPU to compress it), so callers ask only for a record whose
 * upper bound ({@link RecordSizeLimit#serializedSize}) is over a limit.
 *
 * <p>Stateless; thread-safe.
 */
final class SingleRecordBatch {

  private SingleRecordBatch() {}

  /**
   * The codec of a producer built from this configuration, with its level, as {@code KafkaProducer}
   * configures it.
   *
   * @param producerConfig the complete producer configuration
   * @return the codec; {@link Compression#NONE} when the producer does not compress
   */
  static Compression codecOf(Map<String, Object> producerConfig) {
    Map<String, Object> parsed = ProducerConfig.configDef().parse(producerConfig);
    CompressionType type =
        CompressionType.forName((String) parsed.get(ProducerConfig.COMPRESSION_TYPE_CONFIG));
    return switch (type) {
      case GZIP ->
          Compression.gzip()
              .level((Integer) parsed.get(ProducerConfig.COMPRESSION_GZIP_LEVEL_CONFIG))
              .build();
      case LZ4 ->
          Compression.lz4()
              .level((Integer) parsed.get(ProducerConfig.COMPRESSION_LZ4_LEVEL_CONFIG))
              .build();
      case ZSTD ->
          Compression.zstd()
              .level((Integer) parsed.get(ProducerConfig.COMPRESSION_ZSTD_LEVEL_CONFIG))
              .build();
      default -> Compression.of(type).build();
    };
  }

  /**
   * The record's size in bytes as a batch of its own, compressed with the codec.
   *
   * @param record the record
   * @param codec the producer's codec, {@link Compression#NONE} included
   * @return the batch's size in bytes, header included
   */
  static int sizeOf(RoutedRecord record, Compression codec) {
    Header[] kafkaHeaders = RecordSizeLimit.kafkaHeaders(record);
    // The buffer grows when needed; compressed records rarely need more than a small start.
    MemoryRecordsBuilder builder =
        MemoryRecords.builder(
            ByteBuffer.allocate(1024),
            RecordBatch.CURRENT_MAGIC_VALUE,
            codec,
            TimestampType.CREATE_TIME,
            0L);
    builder.append(
        System.currentTimeMillis(),
        record.key() == null ? null : ByteBuffer.wrap(record.key()),
        record.value() == null ? null : ByteBuffer.wrap(record.value()),
        kafkaHeaders);
    return builder.build().sizeInBytes();
  }
}
