package io.outboxrelay.relay.source.cdc;

import io.debezium.embedded.Connect;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.ChangeEventFormat;
import io.outboxrelay.relay.RelayFailure;
import io.outboxrelay.relay.config.CdcConfig;
import io.outboxrelay.relay.config.RelayConfig;
import io.outboxrelay.relay.config.SourceConfig;
import io.outboxrelay.relay.metrics.OutageLog;
import io.outboxrelay.relay.source.SqlDialect;
import io.outboxrelay.relay.source.cdc.leader.FencedOffsetBackingStore;
import io.outboxrelay.relay.source.cdc.leader.LeadershipStore;
import io.outboxrelay.relay.source.cdc.leader.Tenure;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run of the embedded engine, for one term as leader: it starts from the committed position,
 * publishes while the term lasts, and commits positions fenced by the term's epoch. A new term gets
 * a new run. Thread-safe.
 */
final class EngineRun {

  private static final Logger LOG = LoggerFactory.getLogger(EngineRun.class);

  /** What a run reports when it ends: whether it was asked to, and the engine's outcome. */
  interface Completion {
    void ended(EngineRun run, boolean requested, boolean success, String message, Throwable error);
  }

  private final RelayConfig config;
  private final Tenure tenure;
  private final DrainGate gate = new DrainGate();
  private final CompletableFuture<Void> streaming = new CompletableFuture<>();
  private volatile boolean stopRequested;
  private volatile DebeziumEngine<RecordChangeEvent<SourceRecord>> engine;
  private volatile Thread engineThread;
  private final OutageLog sourceOutages;
  private volatile BinlogConnectionWatch watch;
  private final ExactlyOnce exactlyOnce; // null: at-least-once

  /**
   * @param config the relay configuration
   * @param tenure the term this run publishes in
   * @param sourceOutages the source database's outage log, shared by every term, where this run's
   *     binlog watch reports
   * @param exactlyOnce the term's Kafka transactions, or null for at-least-once
   */
  EngineRun(RelayConfig config, Tenure tenure, OutageLog sourceOutages, ExactlyOnce exactlyOnce) {
    this.exactlyOnce = exactlyOnce;
    this.config = config;
    this.tenure = tenure;
    this.sourceOutages = sourceOutages;
  }

  /**
   * Completes once the binlog reader streams, or once the run is stopped before it does (a lost
   * lease or a shutdown); exceptionally when it cannot stream.
   */
  CompletableFuture<Void> streaming() {
    return streaming;
  }

  /**
   * Starts the run on a thread of its own and returns at once: a first start ({@link FirstStart})
   * publishes the rows already in the table and stores the position first, then the engine starts
   * from the stored position, and a thread waits for streaming.
   */
  void start(
      OutboxChangeConsumerFactory consumers,
      String holder,
      java.util.function.BiFunction<String, Throwable, RelayFailure> failures,
      Completion completion) {
    OutboxChangeConsumer consumer = consumers.create(gate, tenure::mayPublish);
    Thread t =
        new Thread(
            () -> {
              Properties properties = DebeziumProperties.build(config);
              SqlDialect dialect = SqlDialect.of(config.source().flavor());
              try {
                if (exactlyOnce != null && !resumeAtCommittedPosition(holder)) {
                  streaming.complete(null); // stopped, or no longer leader
                  return;
                }
                if (!dialect.hasBinlog()) {
                  // A deposed leader's replication connection may still hold the slot.
                  PostgresSlotTakeover.takeOver(
                      config, tenure.epoch(), () -> !stopRequested && tenure.mayPublish());
                }
                if (!dialect.hasBinlog() && PostgresFirstStart.needed(config, properties)) {
                  if (!new PostgresFirstStart(config, holder, tenure.epoch(), exactlyOnce)
                      .run(consumer)) {
                    streaming.complete(null); // stopped, or no longer leader: nothing to stream
                    return;
                  }
                } else if (dialect.hasBinlog() && FirstStart.needed(config, properties)) {
                  if (!new FirstStart(config, holder, tenure.epoch(), exactlyOnce).run(consumer)) {
                    streaming.complete(null); // stopped, or no longer leader: nothing to stream
                    return;
                  }
                  // The relay may have schema history from an earlier term as CDC (CDC, polling,
                  // ALTER TABLE, CDC again): streaming with it would decode new rows with the old
                  // definition. Recovery recovers that history, then records the table's
                  // definition as it is now, which wins (Debezium's schema-only snapshot).
                  properties.setProperty("snapshot.mode", "recovery");
                  LOG.info(
                      "[{}] the engine reads the outbox table's definition as it is now"
                          + " (snapshot.mode=recovery), then streams from the first start's"
                          + " position",
                      config.logContext());
                }
                if (!dialect.hasBinlog()) {
                  // Once the first start made the slot, or for the engine to make it so.
                  FailoverSlot.apply(
                      config, properties, () -> !stopRequested && tenure.mayPublish());
                }
              } catch (InterruptedException e) {
                streaming.complete(null);
                return;
              } catch (Exception e) {
                RelayFailure failure =
                    e instanceof RelayFailure rf
                        ? rf
                        : e instanceof io.outboxrelay.relay.StartupCheckException check
                            ? new RelayFailure(String.join("; ", check.problems()), e)
                            : new RelayFailure(
                                "the first start of relay.name '"
                                    + config.name()
                                    + "' failed, nothing was stored (it starts again with the next"
                                    + " start): "
                                    + io.outboxrelay.relay.failure.ErrorClassifier.describe(e),
                                e);
                if (!stopRequested) {
                  streaming.completeExceptionally(failure);
                  completion.ended(this, false, false, failure.getMessage(), failure);
                } else {
                  streaming.complete(null);
                }
                return;
              }
              startEngine(properties, consumer, holder, failures, completion);
            },
            "cdc-first-start");
    t.setDaemon(true);
    t.start();
  }

  /**
   * With exactly-once, before anything else of the term: fences the previous holder's producer and
   * reads the position committed in Kafka with the last records, then stores it in the database
   * (fenced by the term's epoch) where the two differ, so that the engine resumes where the records
   * in Kafka end ({@link CommittedPosition} says when the database's wins).
   *
   * @return false when the run stopped or lost leadership first
   */
  private boolean resumeAtCommittedPosition(String holder) throws Exception {
    String context = config.logContext();
    Optional<String> committed = exactlyOnce.start(() -> stopRequested || !tenure.mayPublish());
    if (committed == null) {
      return false;
    }
    SourceConfig source = config.source();
    boolean binlog = SqlDialect.of(source.flavor()).hasBinlog();
    String stored = storedPosition(source);
    if (committed.isEmpty()) {
      LOG.info(
          "[{}] exactly-once: no position of relay.name '{}' in the progress topic {} yet;"
              + " starting from {}",
          context,
          config.name(),
          config.delivery().progressTopic(),
          stored == null ? "a first start" : "the database's position " + stored);
      return true;
    }
    Optional<String> toStore = CommittedPosition.toStore(committed.get(), stored);
    if (toStore.isEmpty()) {
      LOG.info(
          "[{}] exactly-once: starting from the database's position {}: {} (the progress topic"
              + " holds {})",
          context,
          stored,
          stored.contains(HandoffMarker.FIELD)
              ? "a hand-off to CDC is pending, and its first start publishes what polling left"
              : !PostgresReplication.isPosition(stored)
                  ? "a first start did not finish and begins again"
                  : CommittedPosition.same(stored, committed.get())
                      ? "the same"
                      : "it is later in the "
                          + (binlog ? "binlog" : "WAL")
                          + " (an at-least-once run or a position command moved it on)",
          committed.get());
      return true;
    }
    if (stored == null && !binlog && !slotExists(source)) {
      // A WAL position means nothing without its slot: the database's position and the slot were
      // both removed (to start afresh), and, as at-least-once, the next start is a first start.
      LOG.info(
          "[{}] exactly-once: the progress topic holds {}, but relay.name '{}' has neither a"
              + " position in {} nor {}: that position cannot be streamed from; starting as a"
              + " relay that never ran",
          context,
          committed.get(),
          config.name(),
          config.cdc().offsetsTable(),
          PostgresReplication.describeSlot(config.name()));
      return true;
    }
    try (Connection c = TermConnections.open(config)) {
      c.setAutoCommit(false);
      FirstStart.replacePosition(c, config, toStore.get());
      if (!FirstStart.fence(c, config, holder, tenure.epoch())) {
        c.rollback();
        return false;
      }
      c.commit();
    }
    LOG.info(
        "[{}] exactly-once: resuming at the position committed in Kafka with the last records"
            + " ({}); the database held {}",
        context,
        toStore.get(),
        stored == null ? "none" : stored);
    return true;
  }

  /** Whether the relay's replication slot exists (PostgreSQL). */
  private boolean slotExists(SourceConfig source)
      throws SQLException, io.outboxrelay.relay.StartupCheckException {
    try (Connection c = TermConnections.open(config)) {
      return PostgresFirstStart.slotExists(c, PostgresReplication.slotName(config.name()));
    }
  }

  /** The relay's position text in the offsets table, or null when it has none. */
  private String storedPosition(SourceConfig source)
      throws SQLException, io.outboxrelay.relay.StartupCheckException {
    try (Connection c = TermConnections.open(config);
        Statement st = c.createStatement()) {
      if (!SqlDialect.of(source.flavor()).hasBinlog()) {
        return PostgresReplication.storedOffset(c, config); // through the search path
      }
      if (!BinlogPreflight.visible(c, source.database() + "." + config.cdc().offsetsTable())) {
        return null;
      }
      return ResumePoint.offset(st, config.cdc().offsetsTable(), config.name())
          .map(Object::toString)
          .orElse(null);
    }
  }

  private void startEngine(
      Properties properties,
      OutboxChangeConsumer consumer,
      String holder,
      java.util.function.BiFunction<String, Throwable, RelayFailure> failures,
      Completion completion) {
    CdcConfig cdc = config.cdc();
    SqlDialect dialect = SqlDialect.of(config.source().flavor());
    if (dialect.hasBinlog()) {
      recoverSchemaIfNeeded(properties); // PostgreSQL's connector keeps no schema history
    }
    FencedOffsetBackingStore.configure(
        properties,
        cdc.leaderTable(),
        LeadershipStore.resourceOf(config.source()),
        holder,
        tenure.epoch(),
        config.logContext(),
        dialect.now());
    synchronized (this) {
      if (stopRequested) {
        streaming.complete(null);
        return;
      }
      engine =
          DebeziumEngine.create(ChangeEventFormat.of(Connect.class))
              .using(properties)
              .using(new PositionCommitPolicy(cdc.batchSize(), cdc.commitInterval()))
              .using(
                  (success, message, error) -> {
                    if (stopRequested) {
                      // Stopped before it streamed: lost leadership (the relay is a standby now)
                      // or a shutdown. The engine then reports a failure of its own (a state
                      // change it could not make), which is no failure of the relay's.
                      streaming.complete(null);
                    } else if (!streaming.isDone()) {
                      streaming.completeExceptionally(failures.apply(message, error));
                    }
                    completion.ended(this, stopRequested, success, message, error);
                  })
              .notifying(consumer)
              .build();
      Thread t = new Thread(engine, "cdc-engine");
      t.setDaemon(false);
      engineThread = t;
      t.start();
    }
    Thread waiter = new Thread(() -> awaitStreaming(properties), "cdc-engine-start");
    waiter.setDaemon(true);
    waiter.start();
  }

  /**
   * A position stored by the relay's first start ({@link FirstStart}, also after {@code handoff
   * --to cdc}) or by {@code position import} for a relay that never ran has no schema history: the
   * engine then takes the outbox table's definition as it is now ({@code snapshot.mode=recovery},
   * schema only) and streams from that position. Safe as long as the table was not altered between
   * that position and now, which the first start (it stores the position of the moment before the
   * engine starts) makes all but certain, and the import's documentation asks the operator to make
   * sure of.
   */
  private void recoverSchemaIfNeeded(Properties properties) {
    if (!"no_data".equals(properties.getProperty("snapshot.mode"))) {
      return; // the operator chose a snapshot mode
    }
    try {
      java.util.Optional<ResumePoint> stored =
          ResumePoint.read(config.source(), config.cdc(), config.name());
      if (stored.isPresent() && stored.get().withoutSchemaHistory()) {
        properties.setProperty("snapshot.mode", "recovery");
        LOG.info(
            "[{}] relay.name '{}' has a stored position ({}) but no schema history in {} (its"
                + " first start or a position import stored it): the engine reads the outbox"
                + " table's definition as it is now, then streams from that position",
            config.logContext(),
            config.name(),
            stored.get().describe(),
            config.cdc().schemaHistoryTable());
      }
    } catch (java.sql.SQLException e) {
      LOG.warn(
          "[{}] cannot read the stored position to check its schema history: {}",
          config.logContext(),
          e.getMessage());
    }
  }

  private void awaitStreaming(Properties properties) {
    String context = config.logContext();
    SqlDialect dialect = SqlDialect.of(config.source().flavor());
    StreamingProbe probe = new StreamingProbe(dialect.connectorType(), config.name());
    long deadline = System.nanoTime() + config.cdc().startupTimeout().toNanos();
    try {
      while (!probe.isStreaming()) {
        if (streaming.isDone() || stopRequested) {
          return;
        }
        if (System.nanoTime() > deadline) {
          streaming.completeExceptionally(
              new RelayFailure(
                  (dialect.hasBinlog()
                          ? "the binlog reader"
                          : "the reader of " + PostgresReplication.describeSlot(config.name()))
                      + " did not connect within "
                      + config.cdc().startupTimeout().toSeconds()
                      + "s (cdc.startup.timeout): check that "
                      + config.source().describe()
                      + " is reachable and that the relay user may read the "
                      + (dialect.hasBinlog() ? "binlog" : "replication slot"),
                  null));
          return;
        }
        Thread.sleep(20);
      }
    } catch (InterruptedException e) {
      return;
    }
    synchronized (this) {
      if (stopRequested) {
        return;
      }
      // PostgreSQL: no binlog client to watch; a lost replication connection is Debezium's to
      // handle (docs/postgresql.md: not tested yet).
      if (dialect.hasBinlog()) {
        watch =
            BinlogConnectionWatch.of(
                probe, sourceOutages, DebeziumProperties.keepalive(properties), config.source());
        watch.start();
      }
    }
    LOG.info(
        "[{}] ready: streaming inserts into {}.{} from the {} of {}; every event committed"
            + " from now on will be published",
        context,
        config.source().database(),
        config.source().table(),
        dialect.hasBinlog() ? "binlog" : PostgresReplication.describeSlot(config.name()),
        config.source().describe());
    streaming.complete(null);
  }

  /**
   * Stops the engine: no new batch, the batch in flight gets up to {@code timeout} to be
   * acknowledged, its position is committed (fenced), then the engine closes.
   *
   * @return true when the batch in flight finished in time
   */
  boolean stop(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (this) {
      stopRequested = true;
      BinlogConnectionWatch w = watch;
      if (w != null) {
        w.close(); // a stop closes the binlog connection on purpose
      }
    }
    boolean drained = true;
    try {
      drained = gate.drain(timeout);
      closeEngine(deadline);
      Thread t = engineThread;
      if (t != null) {
        t.join(Math.max(1000, (deadline - System.nanoTime()) / 1_000_000));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return drained;
  }

  private void closeEngine(long deadline) throws InterruptedException {
    DebeziumEngine<?> e = engine;
    if (e == null) {
      return;
    }
    while (true) {
      try {
        e.close();
        return;
      } catch (IllegalStateException starting) {
        // "Cannot stop engine while tasks are starting" / already stopping or stopped
        if (!starting.getMessage().contains("starting") || System.nanoTime() > deadline) {
          return;
        }
        Thread.sleep(50);
      } catch (IOException io) {
        LOG.warn("[{}] closing the CDC engine failed: {}", config.logContext(), io.toString());
        return;
      }
    }
  }

  /** Builds the consumer of a run. */
  interface OutboxChangeConsumerFactory {
    OutboxChangeConsumer create(DrainGate gate, java.util.function.BooleanSupplier mayPublish);
  }
}
