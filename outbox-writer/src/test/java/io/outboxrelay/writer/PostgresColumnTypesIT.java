package io.outboxrelay.writer;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.sql.Connection;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * On PostgreSQL the writer binds the event id, payload and headers with an unspecified type, so
 * that the server converts them to the column's type: every combination a user may have chosen
 * takes them, with the driver's default settings.
 */
class PostgresColumnTypesIT {

  private static final ObjectMapper JSON = new ObjectMapper();

  private WriterDatabase db;

  @BeforeEach
  void setUp() {
    db = WriterDatabase.postgres();
  }

  @AfterEach
  void tearDown() {
    db.close();
  }

  @ParameterizedTest(name = "event_id {0}, payload {1}, headers {2}")
  @CsvSource({
    "uuid, jsonb, jsonb",
    "uuid, json, json",
    "uuid, text, text",
    "varchar(36), jsonb, jsonb",
    "text, json, jsonb",
    "varchar(64), text, json"
  })
  void writesEveryColumnTypeCombination(String idType, String payloadType, String headersType)
      throws Exception {
    db.execute(
        "CREATE TABLE typed_events (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
            + " event_id "
            + idType
            + " NOT NULL UNIQUE, aggregate_type varchar(255) NOT NULL,"
            + " aggregate_id varchar(255) NOT NULL, event_type varchar(255) NOT NULL, payload "
            + payloadType
            + " NOT NULL, aggregate_version bigint NULL, headers "
            + headersType
            + " NULL)");
    OutboxWriter writer = OutboxWriter.builder().table("typed_events").build();
    String payload = "{\"orderId\":\"o-1\",\"lines\":[1,2],\"note\":\"é\"}";
    String withHeaders;
    String without;
    try (Connection c = db.connect()) {
      withHeaders =
          writer.append(
              c,
              NewEvent.builder("order", "o-1", "OrderPaid")
                  .payload(payload)
                  .aggregateVersion(2)
                  .header("tenant", "acme")
                  .header("note", "\"quoted\" é")
                  .build());
      without = writer.append(c, NewEvent.of("order", "o-1", "OrderShipped", "{}"));
      c.commit();
    }

    Map<String, Object> row = db.row("typed_events", "event_id", withHeaders);
    assertThat(JSON.readTree((String) row.get("payload"))).isEqualTo(JSON.readTree(payload));
    if (payloadType.equals("jsonb")) {
      assertThat(row.get("payload")).isNotEqualTo(payload); // jsonb renders its own way
    } else {
      assertThat(row.get("payload")).isEqualTo(payload);
    }
    assertThat(JSON.readTree((String) row.get("headers")))
        .isEqualTo(JSON.valueToTree(Map.of("tenant", "acme", "note", "\"quoted\" é")));
    assertThat(((Number) row.get("aggregate_version")).longValue()).isEqualTo(2);
    assertThat(db.row("typed_events", "event_id", without).get("headers")).isNull();
  }
}
