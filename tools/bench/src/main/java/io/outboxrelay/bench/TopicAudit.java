package io.outboxrelay.bench;

import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * What a pipeline published, read back from its topics (from the beginning to their end when read):
 * each expected event looked up by its {@code id} header, so that a figure counts only when every
 * event arrived as its row says (topic {@code <prefix><aggregate_type>}, key {@code aggregate_id},
 * value the payload's bytes, headers {@code event_type}, {@code aggregate_type} and {@code
 * aggregate_id}; other headers are allowed); and the latency of the timed events, the broker's
 * append time (the topics' timestamps are {@code LogAppendTime}) minus the commit time.
 *
 * @param records the records read
 * @param missing expected ids not found
 * @param duplicates records beyond the first of an id
 * @param unexpected records without an {@code id} header or with an id not expected
 * @param differing records of an expected id whose topic, key, value or headers differ from the row
 * @param headers the header names of the first record, in order
 * @param latency of the timed events found, in milliseconds
 * @param latencyPerSecond the same per second of commit time, from the first timed event's
 */
record TopicAudit(
    long records,
    long missing,
    long duplicates,
    long unexpected,
    long differing,
    List<String> headers,
    Percentiles latency,
    List<Percentiles> latencyPerSecond) {

  /** The columns of an outbox row a record is compared with. */
  record Row(String aggregateType, String aggregateId, String eventType, String payload) {}

  /** Every expected event arrived as its row says: the pipeline's figures count. */
  boolean complete() {
    return missing == 0 && differing == 0;
  }

  /**
   * Reads the rows of the outbox table.
   *
   * @return the rows by event id
   */
  static Map<String, Row> rows(OutboxDatabase db) throws SQLException {
    Map<String, Row> rows = new HashMap<>();
    try (Connection c = db.app();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT event_id, aggregate_type, aggregate_id, event_type, payload"
                    + " FROM outbox_events")) {
      while (rs.next()) {
        rows.put(
            rs.getString(1),
            new Row(rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5)));
      }
    }
    return rows;
  }

  /**
   * Reads the topics.
   *
   * @param topicPrefix what precedes the aggregate type in a topic's name
   * @param expected the ids of every event written
   * @param rows the outbox rows by event id, to compare the records with
   * @param commitMillis commit time (ms, wall clock) of the timed events, by id
   */
  static TopicAudit read(
      String bootstrap,
      List<String> topics,
      String topicPrefix,
      Set<String> expected,
      Map<String, Row> rows,
      Map<String, Long> commitMillis) {
    Map<String, Integer> seen = new HashMap<>(expected.size() * 2);
    List<Long> committed = new ArrayList<>(commitMillis.size());
    List<Double> latencies = new ArrayList<>(commitMillis.size());
    List<String> headers = new ArrayList<>();
    long[] counts = new long[3]; // records, unexpected, differing
    TopicRecords.readAll(
        bootstrap,
        topics,
        r -> {
          if (counts[0]++ == 0) {
            r.headers().forEach(h -> headers.add(h.key()));
          }
          String id = TopicRecords.id(r);
          if (id == null || !expected.contains(id)) {
            counts[1]++;
            return;
          }
          if (differs(r, topicPrefix, rows.get(id))) {
            counts[2]++;
          }
          if (seen.merge(id, 1, Integer::sum) == 1 && commitMillis.containsKey(id)) {
            committed.add(commitMillis.get(id));
            latencies.add((double) (r.timestamp() - commitMillis.get(id)));
          }
        });
    long records = counts[0];
    long unexpected = counts[1];
    long differing = counts[2];
    long duplicates = seen.values().stream().mapToLong(n -> n - 1).sum();
    LatencyReader.Samples samples =
        new LatencyReader.Samples(
            committed.stream().mapToLong(Long::longValue).toArray(),
            latencies.stream().mapToDouble(Double::doubleValue).toArray());
    return new TopicAudit(
        records,
        expected.size() - seen.size(),
        duplicates,
        unexpected,
        differing,
        headers,
        samples.percentiles(),
        samples.windows(Duration.ofSeconds(1)));
  }

  /** Whether the record is not what its row makes: a row that is gone counts as differing. */
  private static boolean differs(ConsumerRecord<byte[], byte[]> r, String topicPrefix, Row row) {
    return row == null
        || !r.topic().equals(topicPrefix + row.aggregateType())
        || !Arrays.equals(r.key(), utf8(row.aggregateId()))
        || !Arrays.equals(r.value(), utf8(row.payload()))
        || !header(r, "event_type", row.eventType())
        || !header(r, "aggregate_type", row.aggregateType())
        || !header(r, "aggregate_id", row.aggregateId());
  }

  private static boolean header(ConsumerRecord<byte[], byte[]> r, String name, String value) {
    Header h = r.headers().lastHeader(name);
    return h != null && Arrays.equals(h.value(), utf8(value));
  }

  private static byte[] utf8(String s) {
    return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
  }

  /** One line for the log: what was read and what is wrong, if anything. */
  String describe() {
    return String.format(
        "%,d records; %,d expected ids missing, %,d duplicates, %,d unexpected, %,d differing from"
            + " their rows; headers %s",
        records, missing, duplicates, unexpected, differing, headers.isEmpty() ? "-" : headers);
  }
}
