package io.outboxrelay.relay.source.cdc.leader;

import static org.assertj.core.api.Assertions.assertThat;

import io.debezium.config.Configuration;
import io.debezium.storage.jdbc.offset.JdbcOffsetBackingStore;
import io.debezium.storage.jdbc.offset.JdbcOffsetBackingStoreConfig;
import io.outboxrelay.relay.testing.UpstreamClass;
import java.lang.reflect.Modifier;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import org.junit.jupiter.api.Test;

/**
 * Pins what {@link FencedOffsetBackingStore} copies from and relies on in Debezium's {@code
 * JdbcOffsetBackingStore}: its {@code save} is a copy of Debezium's with the fence added and the
 * delete narrowed to the relay's own key, its {@code start} keeps only that key of what Debezium's
 * loaded, its {@code set} replaces Debezium's, and it reads Debezium's protected {@code data} and
 * {@code executor}. When a Debezium upgrade changes any of these, a test here fails: compare the
 * new upstream code with the copy (docs/upgrading.md, "Upgrading Debezium or Kafka"), carry the
 * change over, then record the new fingerprint.
 */
class FencedOffsetBackingStorePinTest {

  private static final String RECHECK =
      " changed in this Debezium version (%s): compare it with FencedOffsetBackingStore's copy,"
          + " carry the change over, then record the fingerprint %s here";

  @Test
  void debeziumSaveIsTheOneTheFencedSaveCopies() {
    // The statements (delete every row, one insert per key with id, key, value, time, sequence),
    // the retry, the commit: FencedOffsetBackingStore.save does the same but deletes only the
    // rows of its own key (Debezium's delete would remove the other relays' positions), then
    // fences.
    assertUnchanged(JdbcOffsetBackingStore.class, "888f8ff0e8cf3b94", "save");
  }

  @Test
  void debeziumSetAndLoadAreTheOnesTheFencedStoreReplacesAndKeeps() {
    // set: the fenced store's own set must merge the same way (null keys ignored) and leave the
    // loaded map as Debezium's get and load expect it.
    assertUnchanged(JdbcOffsetBackingStore.class, "076244e22294526c", "set", "get", "load");
  }

  @Test
  void debeziumStartLoadsEveryRowIntoTheMapTheFencedStartFilters() {
    // start creates the table and loads every row of it into data; the fenced start then drops
    // the keys of other relays. A start that loads elsewhere, or later, escapes the filter.
    assertUnchanged(JdbcOffsetBackingStore.class, "2d28af5c252f1f3e", "start");
  }

  @Test
  void debeziumOffsetStatementsTakeTheParametersTheCopyBinds() {
    JdbcOffsetBackingStoreConfig config =
        new JdbcOffsetBackingStoreConfig(
            Configuration.from(
                Map.of(
                    "offset.storage.jdbc.connection.url", "jdbc:mariadb://127.0.0.1/relay",
                    "offset.storage.jdbc.connection.user", "relay",
                    "offset.storage.jdbc.connection.password", "unused",
                    "offset.storage.jdbc.table.name", "outbox_relay_offsets")));
    // The copy binds id, key, value, time and sequence in this order; the position commands read
    // rows in this order, the last row of a key winning, as Debezium's load does.
    // The copy deletes by id from the table Debezium's statements name.
    assertThat(config.getTableName()).isEqualTo("outbox_relay_offsets");
    assertThat(config.getTableDelete()).isEqualTo("DELETE FROM outbox_relay_offsets");
    assertThat(config.getTableInsert())
        .isEqualTo(
            "INSERT INTO outbox_relay_offsets(id, offset_key, offset_val, record_insert_ts,"
                + " record_insert_seq) VALUES ( ?, ?, ?, ?, ? )");
    assertThat(config.getTableSelect())
        .isEqualTo(
            "SELECT id, offset_key, offset_val FROM outbox_relay_offsets ORDER BY"
                + " record_insert_ts, record_insert_seq");
  }

  @Test
  void theFieldsTheFencedStoreSharesAreStillProtected() throws NoSuchFieldException {
    var data = JdbcOffsetBackingStore.class.getDeclaredField("data");
    var executor = JdbcOffsetBackingStore.class.getDeclaredField("executor");
    assertThat(Modifier.isProtected(data.getModifiers())).isTrue();
    assertThat(data.getType()).isEqualTo(ConcurrentHashMap.class);
    assertThat(Modifier.isProtected(executor.getModifiers())).isTrue();
    assertThat(executor.getType()).isEqualTo(ExecutorService.class);
  }

  private static void assertUnchanged(Class<?> type, String expected, String... methods) {
    UpstreamClass upstream = UpstreamClass.of(type);
    String actual = upstream.fingerprint(methods);
    assertThat(actual)
        .as(
            type.getSimpleName() + "." + String.join("/", methods) + RECHECK,
            upstream.location(),
            actual)
        .isEqualTo(expected);
  }
}
