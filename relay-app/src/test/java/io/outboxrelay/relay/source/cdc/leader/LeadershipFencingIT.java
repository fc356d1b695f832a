package io.outboxrelay.relay.source.cdc.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.debezium.embedded.EmbeddedWorkerConfig;
import io.outboxrelay.relay.config.SourceConfig;
import io.outboxrelay.relay.testing.Configs;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.stack.LocalStack;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The lease and the fenced position store against a real MariaDB, as the relay user of the grants
 * file: who takes a lease and when, by the database clock, and that a relay whose epoch is past
 * cannot write the position.
 */
class LeadershipFencingIT {

  private static final Duration LEASE = Duration.ofMillis(500);

  private OutboxDatabase db;
  private SourceConfig source;

  @BeforeEach
  void setUp() {
    db = OutboxDatabase.on(LocalStack.shared().mariaDb());
    source = RelaySettings.cdc(db, "127.0.0.1:9", "lease-test").parsedBy(Configs::parse).source();
  }

  @AfterEach
  void tearDown() {
    db.close();
  }

  @Test
  void aSecondRelayWaitsUntilTheLeaseExpiresAndThenTakesItWithTheNextEpoch() throws Exception {
    try (LeadershipStore a =
            new LeadershipStore(source, "outbox_relay_leases", Duration.ofSeconds(5));
        LeadershipStore b =
            new LeadershipStore(source, "outbox_relay_leases", Duration.ofSeconds(5))) {
      LeadershipRow first = a.tryAcquire("a", "relay", Duration.ofMinutes(1));
      assertThat(first.heldBy("a")).isTrue();
      assertThat(first.epoch()).isEqualTo(1);
      assertThat(first.resource()).isEqualTo(db.name() + ".outbox_events");

      LeadershipRow seen = b.tryAcquire("b", "relay", LEASE);
      assertThat(seen.holder()).isEqualTo("a");
      assertThat(seen.relayName()).isEqualTo("relay");
      assertThat(seen.remaining()).isGreaterThan(Duration.ofSeconds(50));
      assertThat(a.renew("a", 1, LEASE)).isTrue();

      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> b.tryAcquire("b", "relay", Duration.ofMinutes(1)).heldBy("b"));
      assertThat(b.read().orElseThrow().epoch()).isEqualTo(2);
      assertThat(a.renew("a", 1, LEASE)).as("the deposed leader cannot renew").isFalse();
      assertThat(a.tryAcquire("a", "relay", LEASE).holder()).isEqualTo("b");

      b.release("b", 2);
      assertThat(a.tryAcquire("a", "relay", LEASE).heldBy("a")).as("released").isTrue();
      assertThat(a.read().orElseThrow().epoch()).isEqualTo(3);
    }
  }

  @Test
  void aRelayOfAnotherNameNeverTakesTheLeaseOver() throws Exception {
    try (LeadershipStore a =
            new LeadershipStore(source, "outbox_relay_leases", Duration.ofSeconds(5));
        LeadershipStore b =
            new LeadershipStore(source, "outbox_relay_leases", Duration.ofSeconds(5))) {
      assertThat(a.tryAcquire("a", "orders", LEASE).heldBy("a")).isTrue();
      a.release("a", 1);
      // Free, expired: a relay of the same name would take it; one of another name does not.
      LeadershipRow seen = b.tryAcquire("b", "orders-new", Duration.ofMinutes(1));
      assertThat(seen.holder()).isEqualTo("a");
      assertThat(seen.relayName()).isEqualTo("orders");
      assertThat(seen.epoch()).isEqualTo(1);
      assertThat(b.tryAcquire("b2", "orders", Duration.ofMinutes(1)).heldBy("b2")).isTrue();
    }
  }

  @Test
  void aRelayThatLostTheLeaseCannotMoveThePosition() throws Exception {
    try (LeadershipStore leases =
        new LeadershipStore(source, "outbox_relay_leases", Duration.ofSeconds(5))) {
      assertThat(leases.tryAcquire("a", "relay", LEASE).epoch()).isEqualTo(1);
      FencedOffsetBackingStore deposed = store("a", 1);
      save(deposed, "position-1");
      assertThat(deposed.awaitWritten(Duration.ofSeconds(30))).isEmpty();
      assertThat(positions()).containsExactly("position-1");

      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> leases.tryAcquire("b", "relay", Duration.ofMinutes(1)).heldBy("b"));
      save(deposed, "position-2"); // taken at once, written behind the engine: refused
      assertThat(deposed.awaitWritten(Duration.ofSeconds(30)))
          .hasValueSatisfying(failure -> assertThat(failure).contains("epoch 1"));
      assertThat(positions()).containsExactly("position-1");

      FencedOffsetBackingStore leader = store("b", 2);
      save(leader, "position-3");
      assertThat(leader.awaitWritten(Duration.ofSeconds(30))).isEmpty();
      assertThat(positions()).containsExactly("position-3");
      deposed.stop();
      leader.stop();
    }
  }

  private FencedOffsetBackingStore store(String holder, long epoch) {
    Properties p = new Properties();
    p.setProperty("offset.storage.jdbc.connection.url", source.jdbcUrl());
    p.setProperty("offset.storage.jdbc.connection.user", source.user());
    p.setProperty("offset.storage.jdbc.connection.password", source.password().reveal());
    p.setProperty("offset.storage.jdbc.table.name", "outbox_relay_offsets");
    FencedOffsetBackingStore.configure(
        p, "outbox_relay_leases", db.name() + ".outbox_events", holder, epoch, "test", "NOW(6)");
    Map<String, String> config = new HashMap<>();
    p.stringPropertyNames().forEach(k -> config.put(k, p.getProperty(k)));
    config.put("name", "relay"); // the engine's name: the store keeps only rows of its key
    FencedOffsetBackingStore store = new FencedOffsetBackingStore();
    store.configure(new EmbeddedWorkerConfig(config));
    store.start();
    return store;
  }

  private static void save(FencedOffsetBackingStore store, String value) throws Exception {
    store
        .set(
            Map.of(
                ByteBuffer.wrap(OffsetKey.of("relay").getBytes(StandardCharsets.UTF_8)),
                ByteBuffer.wrap(value.getBytes(StandardCharsets.UTF_8))),
            null)
        .get(30, TimeUnit.SECONDS);
  }

  private List<String> positions() throws Exception {
    try (Connection c = db.app();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT offset_val FROM outbox_relay_offsets")) {
      List<String> values = new java.util.ArrayList<>();
      while (rs.next()) {
        values.add(rs.getString(1));
      }
      return values;
    }
  }
}
