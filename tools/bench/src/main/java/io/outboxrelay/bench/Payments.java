package io.outboxrelay.bench;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The business write of the consumer benchmarks: one row in a {@code payments} table per event,
 * with the amount taken from the event's JSON. Plain and idempotent consumers run exactly this.
 */
final class Payments {

  static final String DDL =
      "CREATE TABLE payments (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, event_id"
          + " VARCHAR(64) NOT NULL, order_id VARCHAR(64) NOT NULL, amount DECIMAL(12, 2) NOT NULL,"
          + " currency CHAR(3) NOT NULL, created_at TIMESTAMP(6) NOT NULL DEFAULT"
          + " CURRENT_TIMESTAMP(6)) ENGINE = InnoDB";

  private static final String INSERT =
      "INSERT INTO payments (event_id, order_id, amount, currency) VALUES (?, ?, ?, 'EUR')";

  private Payments() {}

  /** Inserts the record's payment with {@code c}; does not commit. */
  static void apply(ConsumerRecord<byte[], byte[]> record, Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(INSERT)) {
      ps.setString(
          1, new String(record.headers().lastHeader("id").value(), StandardCharsets.UTF_8));
      ps.setString(2, new String(record.key(), StandardCharsets.UTF_8));
      ps.setBigDecimal(3, amount(new String(record.value(), StandardCharsets.UTF_8)));
      ps.executeUpdate();
    }
  }

  /** The number after {@code "amount":} in the payload (the bench's events all have one). */
  private static BigDecimal amount(String json) {
    int start = json.indexOf("\"amount\":") + "\"amount\":".length();
    int end = start;
    while (end < json.length()
        && (Character.isDigit(json.charAt(end)) || json.charAt(end) == '.')) {
      end++;
    }
    return new BigDecimal(json.substring(start, end));
  }
}
