package io.outboxrelay.relay.source.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.relay.testing.InProcessRun;
import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RawOutboxInserts;
import io.outboxrelay.testsupport.outbox.RelayRun;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.TestEvent;
import io.outboxrelay.testsupport.outbox.TestTopics;
import io.outboxrelay.testsupport.stack.LocalStack;
import io.outboxrelay.testsupport.stack.MariaDbServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several services' databases on one server, one CDC relay each: the common layout. Every table a
 * relay creates or reads (position, schema history, lease) is its own database's, even when a table
 * of the same name exists, and is visible to its user, in another database of the server.
 */
class SharedServerIT {

  @TempDir Path dir;

  @Test
  void twoRelaysOnTwoDatabasesOfOneServerEachStreamOnlyTheirOwnTable() throws Exception {
    MariaDbServer server = LocalStack.shared().mariaDb();
    String bootstrap = LocalStack.shared().kafka().bootstrapServers();
    try (OutboxDatabase first = OutboxDatabase.on(server);
        OutboxDatabase second = OutboxDatabase.on(server)) {
      // The second database starts without the storage tables, its relay may create them, and its
      // user sees the first database's (one relay user for every service is common).
      second.admin(
          "DROP TABLE outbox_relay_offsets, outbox_relay_schema_history, outbox_relay_leases");
      String secondUser = "'" + second.relayUser() + "'@'127.0.0.1'";
      server.execute(
          null,
          "GRANT CREATE, SELECT, INSERT, UPDATE, DELETE ON "
              + second.name()
              + ".* TO "
              + secondUser,
          "GRANT SELECT ON " + first.name() + ".* TO " + secondUser);
      TestTopics firstTopics = TestTopics.fresh(bootstrap, "shared1");
      TestTopics secondTopics = TestTopics.fresh(bootstrap, "shared2");

      try (RelayRun firstRelay = run("first", first, firstTopics)) {
        Ledger firstLedger = firstTopics.newLedger();
        RawOutboxInserts.write(first, firstLedger, events("a", 1));
        firstTopics.readAll(firstLedger, Duration.ofSeconds(60));

        try (RelayRun secondRelay = run("second", second, secondTopics)) {
          Ledger secondLedger = secondTopics.newLedger();
          for (int round = 2; round <= 4; round++) {
            RawOutboxInserts.write(first, firstLedger, events("a", round));
            RawOutboxInserts.write(second, secondLedger, events("b", round));
          }

          Ledger.Result firstResult = firstTopics.check(firstLedger, Duration.ofSeconds(60));
          Ledger.Result secondResult = secondTopics.check(secondLedger, Duration.ofSeconds(60));
          assertThat(firstResult.lost() + firstResult.unexpected() + firstResult.outOfOrder())
              .as(firstResult.summary())
              .isZero();
          assertThat(secondResult.lost() + secondResult.unexpected() + secondResult.outOfOrder())
              .as(secondResult.summary() + "\n" + secondRelay.log())
              .isZero();
          assertThat(firstResult.mismatches()).isEmpty();
          assertThat(secondResult.mismatches()).isEmpty();
          // Each relay keeps its state in its own database.
          assertThat(count(second, "outbox_relay_offsets")).isPositive();
          assertThat(count(second, "outbox_relay_leases")).isEqualTo(1);
          assertThat(count(first, "outbox_relay_leases")).isEqualTo(1);
        }
      }
    }
  }

  private RelayRun run(String name, OutboxDatabase db, TestTopics topics) {
    Path config =
        RelaySettings.cdc(db, topics.bootstrap(), topics.name())
            .writeTo(dir.resolve(name + ".properties"));
    return InProcessRun.run(name, dir, config);
  }

  private static List<TestEvent> events(String aggregatePrefix, int round) {
    List<TestEvent> events = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      events.add(TestEvent.of("order", aggregatePrefix + i, round));
    }
    return events;
  }

  private static long count(OutboxDatabase db, String table) {
    return ((Number) db.adminQuery("SELECT COUNT(*) FROM " + table)).longValue();
  }
}
