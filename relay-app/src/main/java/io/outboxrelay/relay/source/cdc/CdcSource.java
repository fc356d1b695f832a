package io.outboxrelay.relay.source.cdc;

import io.outboxrelay.relay.OutboxSource;
import io.outboxrelay.relay.RelayFailure;
import io.outboxrelay.relay.StartupCheckException;
import io.outboxrelay.relay.config.CdcConfig;
import io.outboxrelay.relay.config.RelayConfig;
import io.outboxrelay.relay.config.SourceConfig;
import io.outboxrelay.relay.failure.Backoff;
import io.outboxrelay.relay.failure.ErrorClassifier;
import io.outboxrelay.relay.metrics.OutageLog;
import io.outboxrelay.relay.metrics.RelayMetrics;
import io.outboxrelay.relay.publish.KafkaBreaker;
import io.outboxrelay.relay.publish.KafkaPublisher;
import io.outboxrelay.relay.publish.RecordSizeLimit;
import io.outboxrelay.relay.publish.TopicLimits;
import io.outboxrelay.relay.source.OutboxColumns;
import io.outboxrelay.relay.source.SourceConnections;
import io.outboxrelay.relay.source.SqlDialect;
import io.outboxrelay.relay.source.StartSequence;
import io.outboxrelay.relay.source.cdc.leader.LeaderElection;
import io.outboxrelay.relay.source.cdc.leader.LeadershipStore;
import io.outboxrelay.relay.source.cdc.leader.RivalLeadership;
import io.outboxrelay.relay.source.cdc.leader.Tenure;
import io.outboxrelay.relay.versions.VersionWatch;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * CDC mode: runs the embedded Debezium engine on its own thread and publishes through {@link
 * OutboxChangeConsumer}, while this relay holds leadership of its outbox table ({@link
 * LeaderElection}); otherwise it stands by.
 *
 * <p>Start: the {@link BinlogPreflight startup checks} and a wait until Kafka has answered once
 * ({@link KafkaBreaker}), so that a standby is ready to take over; then the election. As leader,
 * the engine starts from the committed position and the source is ready once the binlog reader is
 * connected ({@link StreamingProbe}); as standby, once the election has seen who leads. Each term
 * as leader is one {@link EngineRun}; losing leadership stops it. Stop (SIGTERM): no new batch is
 * published, the batch in flight is given up to the shutdown timeout to be acknowledged, its
 * position is committed, the engine and its connections are closed, and leadership is given up for
 * a standby to take over at once. A clean stop and restart therefore publishes no duplicates.
 *
 * <p>Thread-safe for the {@link OutboxSource} calls.
 */
public final class CdcSource implements OutboxSource {

  private static final Logger LOG = LoggerFactory.getLogger(CdcSource.class);

  /** Once leadership is lost, the longest wait for the batch in flight before the engine closes. */
  private static final Duration LOST_LEASE_DRAIN = Duration.ofSeconds(2);

  /** How long a source that failed on its own waits for the batch in flight as it stops. */
  private static final Duration FAILED_STOP = Duration.ofSeconds(5);

  /** Lifecycle, in order; a source only moves forward. */
  private enum State {
    /** Created, not started. */
    NEW,
    /** Checks done, election running: leader (an engine publishes) or standby. */
    RUNNING,
    /** Stop requested: draining the batch in flight. */
    STOPPING,
    /** Engine closed. */
    STOPPED
  }

  private final RelayConfig config;
  private final KafkaPublisher publisher;
  private final KafkaBreaker kafka;
  private final RelayMetrics metrics;
  private final CompletableFuture<Void> termination = new CompletableFuture<>();
  private final AtomicReference<State> state = new AtomicReference<>(State.NEW);
  private volatile LeaderElection election;
  private volatile OutageLog sourceOutages; // one story per outage, across terms
  private volatile CdcRetention retention;
  private EngineRun run; // guarded by this
  private ExactlyOnce exactlyOnce; // the current term's, guarded by this
  private volatile boolean started; // start() returned: a failing term stops the relay

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
    if (!state.compareAndSet(State.NEW, State.RUNNING)) {
      throw new IllegalStateException("already started");
    }
    String context = config.logContext();
    CdcConfig cdc = config.cdc();
    // The DDL parser warms up while the checks run, so that the engine's first parse is quick.
    DdlParserWarmUp warmUp = DdlParserWarmUp.start(SqlDialect.of(config.source().flavor()));
    Optional<Boolean> checked;
    try {
      checked =
          new StartSequence(config, metrics.health(), kafka, LOG)
              .run(() -> state.get() != State.RUNNING, (c, report) -> runChecks(c, report, warmUp));
    } finally {
      warmUp.snapshotAhead(false); // no-op once told; after a failed check no engine follows
    }
    if (checked.isEmpty()) {
      return; // stopped while waiting for the database or for Kafka
    }
    OutageLog outages =
        BinlogConnectionWatch.sourceOutages(
            context,
            config.source(),
            DebeziumProperties.keepalive(DebeziumProperties.build(config)));
    sourceOutages = outages;
    LeaderElection e =
        new LeaderElection(
            new LeadershipStore(config.source(), cdc.leaderTable(), cdc.leaderLease()),
            config.name(),
            cdc.leaderLease(),
            cdc.leaderRenewInterval(),
            context,
            outages,
            new LeaderElection.Publishing() {
              @Override
              public void start(Tenure tenure) {
                startTerm(tenure);
              }

              @Override
              public void stop() {
                endTerm();
              }
            },
            this::fail);
    election = e;
    e.start();
    if (!cdc.retention().isZero()) {
      retention = new CdcRetention(config, e.holder());
      retention.start();
    }
    EngineRun first;
    synchronized (this) {
      first = run;
    }
    if (first == null) {
      started = true;
      return; // standby: the election said so
    }
    try {
      first.streaming().get();
      started = true;
    } catch (ExecutionException failed) {
      stop(Duration.ofSeconds(5));
      throw failed.getCause() instanceof RelayFailure rf
          ? rf
          : new RelayFailure("the CDC engine failed: " + failed.getCause(), failed.getCause());
    }
  }

  /**
   * The role of this relay for the log and the stats line.
   *
   * @return {@code leader (epoch N)}, {@code standby (holder X, epoch N)} or {@code starting}
   */
  @Override
  public String role() {
    LeaderElection e = election;
    return e == null ? "starting" : e.role();
  }

  private synchronized void startTerm(Tenure tenure) {
    if (state.get() != State.RUNNING) {
      return;
    }
    CdcConfig cdc = config.cdc();
    ExactlyOnce eos = null;
    if (config.delivery().exactlyOnce()) {
      LeaderElection e = election;
      TopicLimits limits =
          TopicLimits.of(
              config.producer().asProperties(config.name()),
              RecordSizeLimit.batchSize(config.producer().asProperties(config.name())),
              config.name() + "-tx-limits",
              config.logContext());
      List<KafkaPublisher> publishers = new ArrayList<>();
      for (String id : config.delivery().transactionalIds()) {
        publishers.add(
            new KafkaPublisher(
                ExactlyOnce.producerFactory(config, id), config.logContext(), kafka, limits));
      }
      eos =
          new ExactlyOnce(config, publishers, metrics, tenure::mayPublish, why -> e.abdicate(why));
    } else {
      publisher.warmUp(); // while the engine starts, rather than at the first event
    }
    ExactlyOnce transactions = eos;
    EngineRun r = new EngineRun(config, tenure, sourceOutages, eos);
    run = r;
    exactlyOnce = eos;
    r.start(
        (gate, mayPublish) ->
            new OutboxChangeConsumer(
                new ChangeEventMapper(config.source().columns(), config.source().sequenceColumn()),
                config.eventRouter(),
                RecordSizeLimit.of(config.producer().asProperties(config.name())),
                transactions != null ? transactions.publisher() : publisher,
                new Backoff(
                    cdc.retryBackoffInitial(),
                    cdc.retryBackoffMax(),
                    2.0,
                    Backoff.JITTER,
                    ThreadLocalRandom.current()),
                kafka,
                cdc.poisonAction(),
                metrics,
                gate,
                config.logContext(),
                mayPublish,
                VersionWatch.of(config.versionCheck(), metrics, config.logContext()),
                transactions),
        election.holder(),
        this::failureFrom,
        this::onEngineCompletion);
    // A term after the first: a failure to stream stops the relay, as it would at start.
    r.streaming()
        .whenComplete(
            (ok, error) -> {
              if (error != null
                  && started
                  && !(!SqlDialect.of(config.source().flavor()).hasBinlog()
                      && lostReplicationConnection(error))) {
                // (A PostgreSQL connection lost while starting: the engine's completion starts
                // a new term instead, see onEngineCompletion.)
                fail(
                    error instanceof RelayFailure rf
                        ? rf
                        : new RelayFailure(error.toString(), error));
              }
            });
  }

  /** Leadership was lost: stop publishing now; a later term starts a new run. */
  private void endTerm() {
    EngineRun r;
    ExactlyOnce eos;
    synchronized (this) {
      r = run;
      run = null;
      eos = exactlyOnce;
      exactlyOnce = null;
    }
    if (eos != null) {
      eos.close(); // its open transaction, if any, is aborted by the next term's producer
    }
    if (r != null) {
      r.stop(LOST_LEASE_DRAIN);
      // That run's binlog watch is gone: what it saw no longer holds the outage open; leadership
      // renewals (or the next term's watch) tell when the database is back.
      sourceOutages.clear(BinlogConnectionWatch.CAUSE);
      // What was in the producer for the lost term must not be delivered later, after the new
      // leader's records: drop it with the producer.
      publisher.reset();
    }
  }

  /**
   * The source failed on its own: it says so through {@link #termination()}, and gives up
   * leadership at once (on a thread of its own: this may run on the engine's thread), so that a
   * standby takes over without waiting for leadership to expire, whether or not the owner ever
   * calls {@link #stop}.
   */
  private void fail(RuntimeException failure) {
    if (state.get() != State.RUNNING) {
      return;
    }
    if (termination.completeExceptionally(
        failure instanceof RelayFailure
            ? failure
            : new RelayFailure(failure.toString(), failure))) {
      Thread t = new Thread(() -> stop(FAILED_STOP), "cdc-failed-stop");
      t.setDaemon(true);
      t.start();
    }
  }

  /**
   * CDC's startup checks, on the connection the start waited for: the {@link BinlogPreflight}
   * checks, then the stored position's, which tells the warm-up whether a snapshot follows. A
   * failed check stops the source: no engine follows.
   *
   * @return whether a schema snapshot follows (no stored position)
   */
  private Boolean runChecks(Connection c, StartSequence.Report report, DdlParserWarmUp warmUp)
      throws StartupCheckException, SQLException {
    boolean binlog = SqlDialect.of(config.source().flavor()).hasBinlog();
    try {
      BinlogPreflight.Result result =
          binlog
              ? BinlogPreflight.check(c, config.source(), config.cdc(), config.name())
              : PostgresPreflight.check(c, config);
      result.warnings().forEach(report::warn);
      report.refuse(result.problems());
    } catch (StartupCheckException | SQLException e) {
      state.set(State.STOPPED);
      throw e;
    }
    if (!binlog) {
      // PostgreSQL: no schema history; nothing stored for the relay is its first start (or a slot
      // streamed from as it stands), where cdc.first.start=skip leaves the table's rows behind.
      if (PostgresReplication.storedOffset(c, config) == null) {
        refuseRetentionOverUnpublishedRows(config.logContext());
      }
      return false;
    }
    boolean snapshot = checkStoredPosition(config.logContext());
    warmUp.snapshotAhead(snapshot);
    return snapshot;
  }

  private void onEngineCompletion(
      EngineRun r, boolean requested, boolean success, String message, Throwable error) {
    State st = state.get();
    if (requested || st == State.STOPPING || st == State.STOPPED) {
      return;
    }
    if (success && error == null) {
      fail(new RelayFailure("the CDC engine stopped unexpectedly: " + message, null));
      return;
    }
    LeaderElection e = election;
    if (e != null
        && started
        && error != null
        && !SqlDialect.of(config.source().flavor()).hasBinlog()
        && lostReplicationConnection(error)) {
      // PostgreSQL stopped or restarted (or the connection broke): the connector gives up its
      // replication stream. A new term streams again from the committed position once the
      // database answers; until then the leadership renewals report the outage.
      LOG.warn(
          "[{}] the connection of {} to {} was lost ({}); streaming again from the committed"
              + " position once the database answers",
          config.logContext(),
          PostgresReplication.describeSlot(config.name()),
          config.source().describe(),
          ErrorClassifier.describe(error));
      e.abdicate("the replication connection was lost");
      return;
    }
    if (e != null && started && error != null && ErrorClassifier.isServerIdTaken(error)) {
      // A reader of this relay.name and server id that leads in another leases table is a replica
      // configured with another cdc.leader.table: retaking would go on for ever, both publishing.
      Optional<String> rival = rivalLeadership();
      if (rival.isPresent()) {
        fail(new RelayFailure(rival.get(), null));
        return;
      }
      // After a takeover, the deposed leader's binlog client may reconnect once more before its
      // engine stops (a paused process that wakes), with the same cdc.server.id, and the server
      // drops this relay's connection for it. Starting again in a new term cures that.
      LOG.warn(
          "[{}] the binlog connection was taken over by another reader with cdc.server.id={}"
              + " (the previous leader's, as it stopped?); starting again",
          config.logContext(),
          config.cdc().serverId());
      e.abdicate("another binlog reader with the same cdc.server.id connected");
      return;
    }
    fail(failureFrom(message, error));
  }

  /**
   * Whether a PostgreSQL engine failed because its connection to the server was lost: a connection
   * error (SQLSTATE class 08), the server shutting down or starting ({@code 57P01}-{@code 57P03}),
   * or the driver's words for a replication stream that broke.
   */
  static boolean lostReplicationConnection(Throwable error) {
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    for (Throwable t = error; t != null && seen.add(t); t = t.getCause()) {
      if (t instanceof SQLException sql && sql.getSQLState() != null) {
        String state = sql.getSQLState();
        if (state.startsWith("08") || state.matches("57P0[123]")) {
          return true;
        }
      }
      String m = t.getMessage();
      if (m != null
          && (m.contains("Database connection failed when")
              || m.contains("An I/O error occurred while sending to the backend")
              || m.contains("This connection has been closed"))) {
        return true;
      }
    }
    return false;
  }

  /**
   * The message naming {@code cdc.leader.table} when a relay of this name leads the table in
   * another leases table, or empty (also when the database cannot tell: then this is taken for the
   * deposed leader's last reconnect).
   */
  private Optional<String> rivalLeadership() {
    SourceConfig source = config.source();
    String table = config.cdc().leaderTable();
    try (Connection c =
        DriverManager.getConnection(source.jdbcUrl(), source.user(), source.password().reveal())) {
      c.setAutoCommit(false);
      return RivalLeadership.find(c, source, table, config.name())
          .map(r -> RivalLeadership.message(r, source, table, config.name()));
    } catch (SQLException ex) {
      LOG.debug("[{}] cannot look for other leases tables", config.logContext(), ex);
      return Optional.empty();
    }
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
      return new RelayFailure(messages().positionUnavailable(detail), error);
    }
    if (ErrorClassifier.isSchemaUnknown(detail)) {
      // Debezium's own check, without an error code: the fallback for what
      // checkStoredPosition cannot see (a schema history deleted or incomplete).
      return new RelayFailure(messages().schemaUnknown(detail), error);
    }
    return new RelayFailure("the CDC engine failed: " + detail, error);
  }

  /**
   * Refuses a stored position that belongs to another table, and says when the relay resumes inside
   * a transaction (Debezium then skips its events already published, silently: the relay drops
   * Debezium's line per skipped event, which would print row values).
   *
   * @return whether there is no stored position (or it could not be read): the engine then takes a
   *     schema snapshot
   */
  private boolean checkStoredPosition(String context) throws StartupCheckException {
    SourceConfig source = config.source();
    Optional<ResumePoint> stored;
    try {
      stored = ResumePoint.read(source, config.cdc(), config.name());
    } catch (SQLException e) {
      LOG.warn(
          "[{}] cannot read the stored position in {}: {}",
          context,
          config.cdc().offsetsTable(),
          e.getMessage());
      return true;
    }
    if (stored.isEmpty()) {
      refuseRetentionOverUnpublishedRows(context);
      return true;
    }
    ResumePoint position = stored.get();
    if (position.belongsToAnotherTable(source.database(), source.table())) {
      state.set(State.STOPPED);
      throw new StartupCheckException(
          List.of(messages().positionOfAnotherTable(position.tables())));
    }
    if (position.handoffPending()) {
      return true; // a first start ('handoff --to cdc'): no position to resume at yet
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
    return false;
  }

  /**
   * A first start (no stored position) with {@code cdc.first.start=skip} publishes nothing already
   * in the table, yet retention would delete those rows as lying before the position. If they are
   * {@code PENDING}, nothing proves they were published (a polling relay may have left them):
   * refuse, rather than let retention delete them unpublished. With {@code publish} (the default)
   * the first start publishes them ({@link FirstStart}, {@link PostgresFirstStart}); after a
   * hand-off to this relay there is a stored {@link HandoffMarker}, not checked here, and the first
   * start publishes them too. The same check on every database: on PostgreSQL nothing stored for
   * the relay means Debezium creates the slot at the server's current position, or streams from a
   * slot made by hand as it stands, and either leaves the rows already in the table behind.
   */
  private void refuseRetentionOverUnpublishedRows(String context) throws StartupCheckException {
    CdcConfig cdc = config.cdc();
    if (cdc.retention().isZero()
        || cdc.firstStart() != io.outboxrelay.relay.config.FirstStartAction.SKIP
        || !"no_data"
            .equals(DebeziumProperties.build(config).getProperty("snapshot.mode", "no_data"))) {
      return;
    }
    SourceConfig source = config.source();
    String table = SqlDialect.of(source.flavor()).qualifiedTable(source);
    long pending;
    try (Connection c = SourceConnections.open(source);
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT COUNT(*) FROM (SELECT 1 FROM "
                    + table
                    + (OutboxColumns.hasStatus(c, source) ? " WHERE status = 'PENDING'" : "")
                    + " LIMIT 1000) pending");
        ResultSet rs = ps.executeQuery()) {
      pending = rs.next() ? rs.getLong(1) : 0;
    } catch (SQLException e) {
      LOG.warn("[{}] cannot count the rows already in {}: {}", context, table, e.getMessage());
      return;
    }
    if (pending == 0) {
      return;
    }
    state.set(State.STOPPED);
    throw new StartupCheckException(List.of(messages().retentionOverPendingRows(table, pending)));
  }

  private CdcFailureMessages messages() {
    return new CdcFailureMessages(config);
  }

  @Override
  public CompletableFuture<Void> termination() {
    return termination;
  }

  @Override
  public void stop(Duration timeout) {
    State previous = state.getAndUpdate(st -> st == State.STOPPED ? st : State.STOPPING);
    if (previous == State.STOPPED || previous == State.STOPPING) {
      return;
    }
    try {
      CdcRetention cleaner = retention;
      if (cleaner != null) {
        cleaner.stop();
      }
      LeaderElection e = election;
      if (e != null) {
        e.close(); // no new term, no renewal: leadership stays until given up below
      }
      EngineRun r;
      ExactlyOnce eos;
      synchronized (this) {
        r = run;
        run = null;
        eos = exactlyOnce;
        exactlyOnce = null;
      }
      boolean drained = r == null || r.stop(timeout);
      if (eos != null) {
        eos.close(); // after the batch in flight committed, or was given up
      }
      if (!drained) {
        LOG.warn(
            "[{}] the batch in flight was not acknowledged within {} ms; its unacknowledged events"
                + " will be published again after restart",
            config.logContext(),
            timeout.toMillis());
      }
      if (e != null) {
        e.release();
      }
    } finally {
      state.set(State.STOPPED);
      termination.complete(null);
    }
  }
}
