package io.outboxrelay.relay.source.cdc;

import io.debezium.embedded.Connect;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.ChangeEventFormat;
import io.outboxrelay.relay.OutboxSource;
import io.outboxrelay.relay.RelayFailure;
import io.outboxrelay.relay.StartupCheckException;
import io.outboxrelay.relay.config.CdcConfig;
import io.outboxrelay.relay.config.RelayConfig;
import io.outboxrelay.relay.config.SourceConfig;
import io.outboxrelay.relay.metrics.RelayMetrics;
import io.outboxrelay.relay.publish.Backoff;
import io.outboxrelay.relay.publish.ErrorClassifier;
import io.outboxrelay.relay.publish.KafkaBreaker;
import io.outboxrelay.relay.publish.KafkaPublisher;
import io.outboxrelay.relay.publish.RecordSizeLimit;
import io.outboxrelay.router.EventRouter;
import java.io.IOException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * CDC mode: runs the embedded Debezium engine on its own thread and publishes through {@link
 * OutboxChangeConsumer}.
 *
 * <p>Start: the {@link BinlogPreflight startup checks}, a wait until Kafka has answered once
 * ({@link KafkaBreaker}), then the engine, then a wait until the binlog reader is connected ({@link
 * StreamingProbe}); only then is the source ready. Stop (SIGTERM): no new batch is published, the
 * batch in flight is given up to the shutdown timeout to be acknowledged, its position is
 * committed, then the engine and its connections are closed. A clean stop and restart therefore
 * publishes no duplicates.
 *
 * <p>Thread-safe for the {@link OutboxSource} calls.
 */
public final class CdcSource implements OutboxSource {

  private static final Logger LOG = LoggerFactory.getLogger(CdcSource.class);

  /** Lifecycle, in order; a source only moves forward. */
  private enum State {
    /** Created, not started. */
    NEW,
    /** Checks done, engine started, waiting for the binlog reader to connect. */
    STARTING,
    /** Connected; every event committed from now on is published. */
    STREAMING,
    /** Stop requested: draining the batch in flight. */
    STOPPING,
    /** Engine closed. */
    STOPPED
  }

  private final RelayConfig config;
  private final KafkaPublisher publisher;
  private final KafkaBreaker kafka;
  private final RelayMetrics metrics;
  private final DrainGate gate = new DrainGate();
  private final CompletableFuture<Void> termination = new CompletableFuture<>();
  private final AtomicReference<State> state = new AtomicReference<>(State.NEW);
  private volatile DebeziumEngine<RecordChangeEvent<SourceRecord>> engine;
  private volatile Thread engineThread;
  private volatile BinlogConnectionWatch watch;

  /**
   * Creates the source; nothing happens until {@link #start()}.
   *
   * @param config the relay configuration, in CDC mode
   * @param publisher the publisher, owned by the caller
   * @param kafka whether Kafka answers, owned and started by the caller: the engine starts once
   *     Kafka has answered
   * @param metrics where to count
   */
  public CdcSource(
      RelayConfig config, KafkaPublisher publisher, KafkaBreaker kafka, RelayMetrics metrics) {
    if (config.cdc() == null) {
      throw new IllegalArgumentException("not a CDC configuration");
    }
    this.config = config;
    this.publisher = publisher;
    this.kafka = kafka;
    this.metrics = metrics;
  }

  @Override
  public void start() throws StartupCheckException, InterruptedException {
    if (!state.compareAndSet(State.NEW, State.STARTING)) {
      throw new IllegalStateException("already started");
    }
    String context = config.logContext();
    CdcConfig cdc = config.cdc();
    runPreflight(context, cdc);
    checkStoredPosition(context);
    // The engine would only queue events for a Kafka that does not answer.
    if (!kafka.awaitClosed(() -> state.get() == State.STARTING)) {
      return;
    }

    OutboxChangeConsumer consumer =
        new OutboxChangeConsumer(
            EventRouter.withTopicTemplate(config.topicTemplate()),
            RecordSizeLimit.of(config.producer().asProperties(config.name())),
            publisher,
            new Backoff(
                cdc.retryBackoffInitial(),
                cdc.retryBackoffMax(),
                2.0,
                0.2,
                ThreadLocalRandom.current()),
            kafka,
            cdc.poisonAction(),
            metrics,
            gate,
            context);
    Properties properties = DebeziumProperties.build(config);
    engine =
        DebeziumEngine.create(ChangeEventFormat.of(Connect.class))
            .using(properties)
            .using(new PositionCommitPolicy(cdc.batchSize(), cdc.commitInterval()))
            .using(this::onEngineCompletion)
            .notifying(consumer)
            .build();
    Thread t = new Thread(engine, "cdc-engine");
    t.setDaemon(false);
    engineThread = t;
    t.start();

    StreamingProbe probe =
        new StreamingProbe(
            DebeziumProperties.connectorType(config.source().flavor()), config.name());
    long deadline = System.nanoTime() + cdc.startupTimeout().toNanos();
    while (!probe.isStreaming()) {
      if (termination.isDone()) {
        try {
          termination.join();
        } catch (CompletionException e) {
          // the engine failed before streaming: its failure, not the future's wrapper
          throw e.getCause() instanceof RelayFailure failure ? failure : e;
        }
      }
      if (System.nanoTime() > deadline) {
        stop(Duration.ofSeconds(5));
        throw new RelayFailure(
            "the binlog reader did not connect within "
                + cdc.startupTimeout().toSeconds()
                + "s (cdc.startup.timeout): check that "
                + config.source().describe()
                + " is reachable and that the relay user may read the binlog",
            null);
      }
      Thread.sleep(20);
    }
    if (state.compareAndSet(State.STARTING, State.STREAMING)) {
      watch =
          BinlogConnectionWatch.of(
              probe, context, config.source(), DebeziumProperties.keepalive(properties));
      watch.start();
      LOG.info(
          "[{}] ready: streaming inserts into {}.{} from the binlog of {}; every event committed"
              + " from now on will be published",
          context,
          config.source().database(),
          config.source().table(),
          config.source().describe());
    }
  }

  private void runPreflight(String context, CdcConfig cdc) throws StartupCheckException {
    BinlogPreflight.Result result;
    try {
      result = BinlogPreflight.check(config.source(), cdc);
    } catch (SQLException e) {
      state.set(State.STOPPED);
      throw new RelayFailure(
          "cannot connect to "
              + config.source().describe()
              + " as '"
              + config.source().user()
              + "': "
              + e.getMessage()
              + ". Check source.host, source.port, source.user and"
              + " source.password, and that the database is up",
          e);
    }
    for (String warning : result.warnings()) {
      LOG.warn("[{}] {}", context, warning);
    }
    if (!result.problems().isEmpty()) {
      state.set(State.STOPPED);
      throw new StartupCheckException(result.problems());
    }
  }

  private void onEngineCompletion(boolean success, String message, Throwable error) {
    State s = state.get();
    if (s == State.STOPPING || s == State.STOPPED) {
      termination.complete(null);
      return;
    }
    if (success && error == null) {
      termination.completeExceptionally(
          new RelayFailure("the CDC engine stopped unexpectedly: " + message, null));
      return;
    }
    termination.completeExceptionally(failureFrom(message, error));
  }

  private RelayFailure failureFrom(String message, Throwable error) {
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    for (Throwable t = error; t != null && seen.add(t); t = t.getCause()) {
      if (t instanceof RelayFailure rf) {
        return rf;
      }
    }
    String detail = error == null ? message : ErrorClassifier.describe(error);
    if (error != null && ErrorClassifier.isBinlogPositionUnavailable(error)) {
      return new RelayFailure(
          "the binlog position stored in "
              + config.cdc().offsetsTable()
              + " for relay.name '"
              + config.name()
              + "' can no longer be read from "
              + config.source().describe()
              + " (its binlog was purged, or reset, while the relay was down), so events may have"
              + " been missed: run 'outbox-relay position reset --to-current' to see what a reset"
              + " skips and which rows to publish with polling mode, then again with --yes"
              + " (README: Operating) ("
              + detail
              + ")",
          error);
    }
    if (detail.contains("schema isn't known to this connector")) {
      // Debezium's own check, without an error code: the fallback for what
      // checkStoredPosition cannot see (a schema history deleted or incomplete).
      return new RelayFailure(
          "the schema history of relay.name '"
              + config.name()
              + "' in "
              + config.cdc().schemaHistoryTable()
              + " does not describe "
              + config.source().database()
              + "."
              + config.source().table()
              + ": its stored position belongs to another table (source.table changed) or the"
              + " history is incomplete. Start fresh: a new relay.name, or delete this relay's row"
              + " from "
              + config.cdc().offsetsTable()
              + " (README: CDC mode, Failures) ("
              + detail
              + ")",
          error);
    }
    return new RelayFailure("the CDC engine failed: " + detail, error);
  }

  /**
   * Refuses a stored position that belongs to another table, and says when the relay resumes inside
   * a transaction (Debezium then skips its events already published, silently: the relay drops
   * Debezium's line per skipped event, which would print row values).
   */
  private void checkStoredPosition(String context) throws StartupCheckException {
    SourceConfig source = config.source();
    Optional<StoredPosition> stored;
    try {
      stored = StoredPosition.read(source, config.cdc(), config.name());
    } catch (SQLException e) {
      LOG.warn(
          "[{}] cannot read the stored position in {}: {}",
          context,
          config.cdc().offsetsTable(),
          e.getMessage());
      return;
    }
    if (stored.isEmpty()) {
      return;
    }
    StoredPosition position = stored.get();
    if (position.belongsToAnotherTable(source.database(), source.table())) {
      state.set(State.STOPPED);
      throw new StartupCheckException(
          List.of(
              "the position stored in "
                  + config.cdc().offsetsTable()
                  + " for relay.name '"
                  + config.name()
                  + "' belongs to "
                  + String.join(", ", position.tables())
                  + ", not to "
                  + source.database()
                  + "."
                  + source.table()
                  + " (source.table changed?): to capture "
                  + source.table()
                  + " use a new relay.name (it starts from the current binlog position), or"
                  + " delete this relay's row from "
                  + config.cdc().offsetsTable()
                  + " (README: CDC mode, Failures)"));
    }
    if (position.eventsToSkip() > 0) {
      LOG.info(
          "[{}] resuming at {}: {} binlog events of the transaction there, and {} row(s) of the"
              + " next, were published before the stop and are skipped",
          context,
          position.describe(),
          position.eventsToSkip(),
          position.rowsToSkip());
    }
  }

  @Override
  public CompletableFuture<Void> termination() {
    return termination;
  }

  @Override
  public void stop(Duration timeout) {
    State previous = state.getAndUpdate(s -> s == State.STOPPED ? s : State.STOPPING);
    if (previous == State.STOPPED || previous == State.STOPPING) {
      return;
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    BinlogConnectionWatch w = watch;
    if (w != null) {
      w.close(); // a stop closes the binlog connection on purpose
    }
    try {
      if (!gate.drain(timeout)) {
        LOG.warn(
            "[{}] the batch in flight was not acknowledged within {} ms; its unacknowledged events"
                + " will be published again after restart",
            config.logContext(),
            timeout.toMillis());
      }
      closeEngine(deadline);
      Thread t = engineThread;
      if (t != null) {
        t.join(Math.max(1000, (deadline - System.nanoTime()) / 1_000_000));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      state.set(State.STOPPED);
      termination.complete(null);
    }
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
}
