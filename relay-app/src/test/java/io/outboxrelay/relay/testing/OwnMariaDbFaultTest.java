package io.outboxrelay.relay.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.TestTopics;
import io.outboxrelay.testsupport.stack.ConsumedRecord;
import io.outboxrelay.testsupport.stack.LocalStack;
import io.outboxrelay.testsupport.stack.MariaDbServer;
import io.outboxrelay.testsupport.stack.TopicReader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Base of the fault tests that hurt a MariaDB server under real relay processes: a server of the
 * class's own (the shared one must never fail), and for each test an outbox database on it (started
 * again first, in case a failed test left it stopped), fresh topics on the shared broker, a ledger
 * and a directory for configurations and logs. After each test the server is resumed (a failed
 * pause test must not leave it frozen) and the database dropped.
 */
public abstract class OwnMariaDbFaultTest {

  private static final Logger LOG = LoggerFactory.getLogger(OwnMariaDbFaultTest.class);

  /** The INFO line that ends a database outage. */
  protected static final Pattern OUTAGE_INFO =
      Pattern.compile("(?m)^\\S+ INFO .*source database .* reachable again after an outage of");

  /** A line of a stack trace: the console should show none. */
  protected static final Pattern STACK_FRAME =
      Pattern.compile("(?m)^(\\s+at [\\w.$]+\\(|Caused by: |\\s+\\.\\.\\. \\d+ more)");

  /** The class's own server. */
  protected static MariaDbServer server;

  /** Configurations and relay logs. */
  @TempDir protected Path dir;

  /** The test's outbox database. */
  protected OutboxDatabase db;

  /** The test's name: relay.name and topic prefix. */
  protected String name;

  /** The broker the relays publish to; a test may point it at a broker of its own. */
  protected String bootstrap;

  /** What the test's application committed. */
  protected Ledger ledger;

  /** The label of the tests' names, e.g. {@code dbfault}. */
  protected abstract String label();

  /**
   * The outbox database of a test; a polling test adds the polling grants.
   *
   * @param server the class's server
   * @return the database
   */
  protected OutboxDatabase newDatabase(MariaDbServer server) {
    return OutboxDatabase.on(server);
  }

  @BeforeAll
  static void startOwnServer() {
    server = MariaDbServer.builder().start();
  }

  @AfterAll
  static void closeOwnServer() {
    if (server != null) {
      server.close();
      server = null;
    }
  }

  @BeforeEach
  void setUpDatabaseAndTopics() {
    server.start();
    db = newDatabase(server);
    TestTopics topics = TestTopics.fresh(LocalStack.shared().kafka().bootstrapServers(), label());
    name = topics.name();
    bootstrap = topics.bootstrap();
    ledger = topics.newLedger();
  }

  @AfterEach
  void resumeServerAndDropDatabase() {
    if (server.isRunning()) {
      server.process().resume();
    }
    db.close();
  }

  /** A reader of the test's topics on {@link #bootstrap}. */
  protected TopicReader reader() {
    return TopicReader.forPrefix(bootstrap, RelaySettings.topicPrefix(name));
  }

  /** Waits until at least {@code atLeast} records were published, and asserts that they were. */
  protected void awaitPublished(int atLeast) {
    List<ConsumedRecord> records =
        reader().readUntil(r -> r.size() >= atLeast, Duration.ofSeconds(120));
    assertThat(records).as("records published").hasSizeGreaterThanOrEqualTo(atLeast);
  }

  /** Waits until every event of the test's ledger arrived, reads on until quiet, and checks. */
  protected Ledger.Result awaitAll() {
    return awaitAll(ledger);
  }

  /** Waits until every event of a ledger arrived, reads on until quiet, and checks. */
  protected Ledger.Result awaitAll(Ledger l) {
    List<ConsumedRecord> records =
        reader()
            .readUntilQuiet(
                l::allArrived,
                Duration.ofSeconds(120),
                Duration.ofSeconds(2),
                Duration.ofSeconds(60));
    Ledger.Result result = l.check(records);
    LOG.info("{}: {}", name, result.summary());
    return result;
  }

  /** Nothing lost, out of order, unexpected or different from what was written. */
  protected static void assertNothingLostOrReordered(Ledger.Result result) {
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
    assertThat(result.unexpected()).as(result.summary()).isZero();
    assertThat(result.mismatches()).as(result.summary()).isEmpty();
  }
}
