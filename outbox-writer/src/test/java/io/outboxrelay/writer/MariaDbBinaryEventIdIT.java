package io.outboxrelay.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A {@code BINARY(16)} event id column (which the relay reads as a UUID in CDC mode) gets the
 * UUID's 16 bytes, big-endian, so the relay publishes the id the writer returned.
 */
class MariaDbBinaryEventIdIT {

  private WriterDatabase db;

  @BeforeEach
  void setUp() {
    db = WriterDatabase.mariaDb();
    db.execute("ALTER TABLE outbox_events MODIFY event_id BINARY(16) NOT NULL");
  }

  @AfterEach
  void tearDown() {
    db.close();
  }

  @Test
  void writesTheUuidsBytesAndRefusesAnIdThatIsNoUuid() throws Exception {
    OutboxWriter writer = OutboxWriter.builder().build();
    UUID given = UUID.randomUUID();
    String generated;
    try (Connection c = db.connect()) {
      generated = writer.append(c, NewEvent.of("order", "o-1", "OrderPaid", "{}"));
      writer.append(
          c, NewEvent.builder("order", "o-1", "OrderShipped").eventId(given).payload("{}").build());
      assertThatThrownBy(
              () ->
                  writer.append(
                      c,
                      NewEvent.builder("order", "o-1", "T")
                          .eventId("req-42")
                          .payload("{}")
                          .build()))
          .isInstanceOf(InvalidEventException.class)
          .hasMessageContaining("is not a UUID");
      c.commit();
    }

    for (String id : new String[] {generated, given.toString()}) {
      Object stored =
          db.count("outbox_events WHERE event_id = UNHEX('" + id.replace("-", "") + "')");
      assertThat(stored).as(id).isEqualTo(1L);
    }
  }
}
