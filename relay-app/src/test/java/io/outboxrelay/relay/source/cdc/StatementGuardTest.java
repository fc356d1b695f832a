package io.outboxrelay.relay.source.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.shyiko.mysql.binlog.BinaryLogClient;
import com.github.shyiko.mysql.binlog.event.Event;
import com.github.shyiko.mysql.binlog.event.EventHeaderV4;
import com.github.shyiko.mysql.binlog.event.EventType;
import com.github.shyiko.mysql.binlog.event.MariadbGtidEventData;
import com.github.shyiko.mysql.binlog.event.QueryEventData;
import com.github.shyiko.mysql.binlog.event.deserialization.EventDeserializer;
import com.github.shyiko.mysql.binlog.io.ByteArrayInputStream;
import io.debezium.connector.mariadb.MariaDbChangeEventSourceFactory;
import io.debezium.connector.mysql.MySqlChangeEventSourceFactory;
import io.debezium.pipeline.ChangeEventSourceCoordinator;
import io.debezium.pipeline.source.spi.ChangeEventSourceFactory;
import io.outboxrelay.relay.RelayFailure;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class StatementGuardTest {

  private static final String PAYLOAD = "{\"card\":\"PAYLOAD-MARKER-4711\"}";

  private BinaryLogClient client;
  private EventDeserializer deserializer;
  private StatementGuard guard;

  @BeforeEach
  void setUp() throws Exception {
    client = new BinaryLogClient("127.0.0.1", 3306, "relay", "secret");
    deserializer = new EventDeserializer();
    client.setEventDeserializer(deserializer);
    client.setBinlogFilename("mariadb-bin.000007");
    client.setBinlogPosition(1234);
    guard = new StatementGuard("app", "outbox_events", "outbox_relay_offsets");
    guard.attach(client);
    // what the client does when it connects, after Debezium set its deserializer
    client.getLifecycleListeners().forEach(l -> l.onConnect(client));
  }

  @Test
  void findsTheInternalsItNeedsInThePinnedVersion() throws Exception {
    // Guards the reflection in StatementGuard: a Debezium upgrade that renames these fails here.
    assertThat(
            ChangeEventSourceCoordinator.class
                .getDeclaredField("changeEventSourceFactory")
                .getType())
        .isEqualTo(ChangeEventSourceFactory.class);
    assertThat(MariaDbChangeEventSourceFactory.class.getDeclaredField("binaryLogClient").getType())
        .isEqualTo(BinaryLogClient.class);
    assertThat(MySqlChangeEventSourceFactory.class.getDeclaredField("binaryLogClient").getType())
        .isEqualTo(BinaryLogClient.class);
    assertThat(BinaryLogClient.class.getDeclaredField("eventDeserializer").getType())
        .isEqualTo(EventDeserializer.class);
  }

  @Test
  void stopsAtAStatementThatInsertsIntoTheOutboxBeforeAnyoneElseReadsIt() throws Exception {
    gtid(0, 1, 42);

    assertThatThrownBy(
            () ->
                deserializer.nextEvent(
                    queryEvent(
                        "app",
                        "INSERT INTO outbox_events (event_id, payload) VALUES ('e-1', '"
                            + PAYLOAD
                            + "')")))
        .hasMessageContaining("statement-based binlog event changed app.outbox_events")
        .hasMessageNotContaining("PAYLOAD-MARKER");

    RelayFailure failure = guard.failure().orElseThrow();
    assertThat(failure.getMessage())
        .contains("(INSERT at mariadb-bin.000007:1234, GTID 0-1-42)")
        .contains("Set binlog_format=ROW")
        .contains("'outbox-relay handoff --to polling'")
        .contains("'outbox-relay handoff --to cdc'")
        .doesNotContain("PAYLOAD-MARKER")
        .doesNotContain("\n");
    assertThatThrownBy(guard::check).isSameAs(failure);
  }

  @Test
  void letsStatementsOnOtherTablesThrough() throws Exception {
    Event event =
        deserializer.nextEvent(queryEvent("app", "INSERT INTO orders VALUES ('" + PAYLOAD + "')"));

    assertThat(((QueryEventData) event.getData()).getSql()).startsWith("INSERT INTO orders");
    assertThat(deserializer.nextEvent(queryEvent("app", "BEGIN"))).isNotNull();
    assertThat(guard.failure()).isEmpty();
  }

  @Test
  void reportsTheFirstStatementOnly() throws Exception {
    assertThatThrownBy(() -> deserializer.nextEvent(queryEvent("app", "DELETE FROM outbox_events")))
        .isNotNull();
    client.setBinlogPosition(5678);
    assertThatThrownBy(
            () -> deserializer.nextEvent(queryEvent("other", "UPDATE app.outbox_events SET x=1")))
        .isNotNull();

    assertThat(guard.failure().orElseThrow().getMessage()).contains("(DELETE at mariadb-bin");
  }

  @Test
  void wrapsTheQueryDeserializerOnceAcrossReconnects() throws Exception {
    client.getLifecycleListeners().forEach(l -> l.onConnect(client));

    assertThatThrownBy(
            () ->
                deserializer.nextEvent(queryEvent("app", "REPLACE INTO outbox_events VALUES (1)")))
        .isNotNull();
    assertThat(deserializer.getEventDataDeserializer(EventType.QUERY).getClass().getSimpleName())
        .isEqualTo("GuardedQueries");
  }

  private void gtid(long domain, long server, long sequence) {
    MariadbGtidEventData data = new MariadbGtidEventData();
    data.setDomainId(domain);
    data.setServerId(server);
    data.setSequence(sequence);
    EventHeaderV4 header = new EventHeaderV4();
    header.setEventType(EventType.MARIADB_GTID);
    client.getEventListeners().forEach(l -> l.onEvent(new Event(header, data)));
  }

  /** A QUERY event as the server sends it: a v4 header, then the query event's body. */
  private static ByteArrayInputStream queryEvent(String database, String sql) {
    byte[] db = database.getBytes(StandardCharsets.UTF_8);
    byte[] text = sql.getBytes(StandardCharsets.UTF_8);
    ByteBuffer body = ByteBuffer.allocate(13 + db.length + 1 + text.length);
    body.order(ByteOrder.LITTLE_ENDIAN);
    body.putInt(7); // thread id
    body.putInt(0); // execution time
    body.put((byte) db.length);
    body.putShort((short) 0); // error code
    body.putShort((short) 0); // status variables length
    body.put(db).put((byte) 0).put(text);
    ByteBuffer header = ByteBuffer.allocate(19).order(ByteOrder.LITTLE_ENDIAN);
    header.putInt(1_700_000_000); // timestamp
    header.put((byte) 2); // QUERY_EVENT
    header.putInt(1); // server id
    header.putInt(19 + body.capacity()); // event length
    header.putInt(1234 + 19 + body.capacity()); // next position
    header.putShort((short) 0); // flags
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(header.array());
    out.writeBytes(body.array());
    return new ByteArrayInputStream(out.toByteArray());
  }
}
