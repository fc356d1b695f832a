package io.outboxrelay.bench;

import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RelayProcess;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.SteadyWriter;
import io.outboxrelay.testsupport.stack.MariaDbServer;
import io.outboxrelay.testsupport.stack.TopicReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The stage of a case in which relay processes are hurt (the recovery and takeover groups): a
 * MariaDB server of its own with an outbox database (a fault may kill it; the other groups' server
 * is never touched), a topic of its own whose record timestamps are the broker's append time, a
 * ledger, and the relay processes started on it, stopped (SIGTERM: they drain and commit) by {@link
 * #stopRelays()} or on close. Not thread-safe.
 */
final class FaultStage implements AutoCloseable {

  /** The aggregate type the steady writer writes. */
  static final String AGGREGATE_TYPE = "order";

  private static final int EVENTS_PER_WRITER_THREAD = 100;

  private final BenchEnv env;
  private final String name;
  private final MariaDbServer mariaDb;
  private final OutboxDatabase db;
  private final Ledger ledger;
  private final List<RelayProcess> relays = new ArrayList<>();
  private Path config;

  private FaultStage(BenchEnv env, String name, MariaDbServer mariaDb, OutboxDatabase db) {
    this.env = env;
    this.name = name;
    this.mariaDb = mariaDb;
    this.db = db;
    this.ledger = new Ledger(RelaySettings.topicPrefix(name));
  }

  /**
   * Starts the server, creates the database and the topic, and writes the relays' configuration.
   *
   * @param env what the groups share
   * @param name the case's relay name and topic prefix
   * @param settings the relays' settings for the case's database
   * @return the stage
   */
  static FaultStage open(
      BenchEnv env, String name, Function<OutboxDatabase, RelaySettings> settings)
      throws Exception {
    MariaDbServer mariaDb = MariaDbServer.builder().start();
    FaultStage stage = null;
    try {
      stage = new FaultStage(env, name, mariaDb, OutboxDatabase.on(mariaDb));
      try (TopicCounter counter = new TopicCounter(env.bootstrapServers())) {
        counter.createLogAppendTimeTopics(List.of(stage.prefix() + AGGREGATE_TYPE), 3);
      }
      stage.config = env.writeConfig(settings.apply(stage.db), name);
      return stage;
    } catch (Exception | Error e) {
      if (stage != null) {
        stage.close();
      } else {
        mariaDb.close();
      }
      throw e;
    }
  }

  /** The case's relay name. */
  String name() {
    return name;
  }

  /** The case's topic prefix. */
  String prefix() {
    return RelaySettings.topicPrefix(name);
  }

  /** The relays' configuration file. */
  Path config() {
    return config;
  }

  /** The case's own MariaDB server. */
  MariaDbServer mariaDb() {
    return mariaDb;
  }

  /** The outbox database. */
  OutboxDatabase db() {
    return db;
  }

  /** The ledger of what the writer committed. */
  Ledger ledger() {
    return ledger;
  }

  /** The relays started so far, in order. */
  List<RelayProcess> relays() {
    return List.copyOf(relays);
  }

  /**
   * Starts relay {@code name-n} with the case's configuration; it runs until the stage closes.
   *
   * @param n the relay's number, for its log file
   * @return the started (not necessarily ready) relay
   */
  RelayProcess startRelay(int n) {
    RelayProcess relay = env.startRelay(name + "-" + n, config);
    relays.add(relay);
    return relay;
  }

  /** Starts an application writing {@code rate} events per second over 2,000 aggregates. */
  SteadyWriter startWriter(int rate) {
    int threads = Math.max(2, (rate + EVENTS_PER_WRITER_THREAD - 1) / EVENTS_PER_WRITER_THREAD);
    return SteadyWriter.start(db, ledger, AGGREGATE_TYPE, rate, 2_000, threads);
  }

  /** A reader of the case's topics. */
  TopicReader reader() {
    return TopicReader.forPrefix(env.bootstrapServers(), prefix());
  }

  /** Stops the relays (SIGTERM: they drain and commit). Idempotent. */
  void stopRelays() {
    for (RelayProcess relay : relays) {
      relay.close();
    }
  }

  @Override
  public void close() {
    try {
      stopRelays();
    } finally {
      try {
        db.close();
      } finally {
        mariaDb.close();
      }
    }
  }
}
