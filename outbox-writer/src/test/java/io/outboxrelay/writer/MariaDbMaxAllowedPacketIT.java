package io.outboxrelay.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A statement above MariaDB's {@code max_allowed_packet} makes the server drop the connection; the
 * writer measures instead, refuses an event that cannot fit (naming the limit) and splits a call
 * whose events fit one by one. Runs with the JVM's private server's limit lowered to 1 MiB (a
 * global setting of that server, restored after each test; test classes of one JVM run in turn).
 */
class MariaDbMaxAllowedPacketIT {

  private static final long LIMIT = 1 << 20;

  private WriterDatabase db;
  private Object previousLimit;

  @BeforeEach
  void lowerTheLimit() throws Exception {
    db = WriterDatabase.mariaDb();
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT @@GLOBAL.max_allowed_packet")) {
      rs.next();
      previousLimit = rs.getLong(1);
    }
    db.execute("SET GLOBAL max_allowed_packet = " + LIMIT);
  }

  @AfterEach
  void restoreTheLimit() {
    try {
      db.execute("SET GLOBAL max_allowed_packet = " + previousLimit);
    } finally {
      db.close();
    }
  }

  private static NewEvent withPayloadChars(String aggregateId, int chars) {
    return NewEvent.of("order", aggregateId, "OrderPaid", "\"" + "x".repeat(chars - 2) + "\"");
  }

  @Test
  void refusesAnEventAboveMaxAllowedPacketNamingTheLimitAndKeepsTheConnectionUsable()
      throws Exception {
    OutboxWriter writer = OutboxWriter.builder().build();
    try (Connection c = db.connect()) {
      assertThatThrownBy(() -> writer.append(c, withPayloadChars("o-1", (int) LIMIT + 10)))
          .isInstanceOf(InvalidEventException.class)
          .hasMessageStartingWith("event order/o-1 OrderPaid: the row is ")
          .hasMessageContaining(
              "more than the database's max_allowed_packet of " + LIMIT + " bytes")
          .hasMessageContaining("SET GLOBAL max_allowed_packet")
          .hasMessageNotContaining("xxx");

      String id = writer.append(c, NewEvent.of("order", "o-2", "OrderPaid", "{}"));
      c.commit();

      assertThat(c.isValid(5)).isTrue();
      assertThat(db.eventIdsInInsertOrder()).containsExactly(id);
    }
  }

  @Test
  void splitsACallWhoseEventsFitOneByOneButNotTogether() throws Exception {
    OutboxWriter writer = OutboxWriter.builder().build();
    try (Connection c = db.connect()) {
      List<String> ids =
          writer.appendAll(
              c,
              List.of(
                  withPayloadChars("o-1", 400_000),
                  withPayloadChars("o-1", 400_000),
                  withPayloadChars("o-2", 400_000)));
      c.commit();

      assertThat(db.eventIdsInInsertOrder()).containsExactlyElementsOf(ids);
      assertThat(db.row(ids.get(2)).get("aggregate_id")).isEqualTo("o-2");
    }
  }
}
