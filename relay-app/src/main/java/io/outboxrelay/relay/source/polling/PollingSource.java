package io.outboxrelay.relay.source.polling;

import io.outboxrelay.relay.OutboxSource;
import io.outboxrelay.relay.RelayFailure;
import io.outboxrelay.relay.StartupCheckException;
import io.outboxrelay.relay.config.PollingConfig;
import io.outboxrelay.relay.config.RelayConfig;
import io.outboxrelay.relay.config.SourceConfig;
import io.outboxrelay.relay.metrics.OutageLog;
import io.outboxrelay.relay.metrics.RelayMetrics;
import io.outboxrelay.relay.publish.KafkaBreaker;
import io.outboxrelay.relay.publish.KafkaPublisher;
import io.outboxrelay.relay.source.IdleTransactionBound;
import io.outboxrelay.relay.source.OutboxColumns;
import io.outboxrelay.relay.source.RowLayout;
import io.outboxrelay.relay.source.SqlDialect;
import io.outboxrelay.relay.source.StartSequence;
import io.outboxrelay.relay.versions.VersionWatch;
import io.outboxrelay.router.EventRouter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Polling mode: {@code polling.workers} worker threads (each with its own connection) and, when
 * retention is on, one thread deleting old published rows; on PostgreSQL one {@link FloorCheck}
 * thread (once a minute, a connection of its own); and one {@link LeaseKeeper} thread renewing the
 * leases of the batches in flight (with a connection of its own, opened when a batch first needs a
 * renewal). Any number of relay processes may poll one table. Stop lets every worker finish its
 * batch in flight (bounded by the shutdown timeout); a batch not finished by then is reclaimed by
 * some worker after its lease expires.
 *
 * <p>Thread-safe for the {@link OutboxSource} calls.
 */
public final class PollingSource implements OutboxSource {

  private static final Logger LOG = LoggerFactory.getLogger(PollingSource.class);

  private final RelayConfig config;
  private final KafkaPublisher publisher;
  private final KafkaBreaker kafka;
  private final RelayMetrics metrics;
  private final SqlDialect dialect;
  private final CompletableFuture<Void> termination = new CompletableFuture<>();
  private final List<PollingWorker> workers = new ArrayList<>();
  private final List<Thread> threads = new ArrayList<>();
  private final AtomicBoolean stopped = new AtomicBoolean();
  private volatile RowLayout layout;
  private RetentionTask retention;
  private LeaseKeeper leases;
  private Thread leaseThread;

  /** The net under the claims' floors, where claims read an ordered window; else null. */
  private volatile FloorCheck floorCheck;

  private volatile Thread floorCheckThread;

  /**
   * Creates the source; nothing happens until {@link #start()}.
   *
   * @param config the relay configuration, in polling mode
   * @param publisher the publisher, owned by the caller
   * @param kafka whether Kafka answers, owned by the caller and started by it: the source claims
   *     nothing until Kafka has answered once, and pauses claiming while the breaker is open
   * @param metrics where to count
   */
  public PollingSource(
      RelayConfig config, KafkaPublisher publisher, KafkaBreaker kafka, RelayMetrics metrics) {
    if (config.polling() == null) {
      throw new IllegalArgumentException("not a polling configuration");
    }
    this.config = config;
    this.publisher = publisher;
    this.kafka = kafka;
    this.metrics = metrics;
    this.dialect = SqlDialect.of(config.source().flavor());
  }

  private Connection connect() throws SQLException {
    SourceConfig s = config.source();
    return DriverManager.getConnection(s.jdbcUrl(), s.user(), s.password().reveal());
  }

  private OutboxStore openStore() throws SQLException {
    return open(
        c ->
            new OutboxStore(
                c,
                config.source().table(),
                config.polling().ordering(),
                config.polling().deadBlocksAggregate(),
                layout,
                floorCheck));
  }

  private OutboxRetention openRetention() throws SQLException {
    return open(
        c ->
            new OutboxRetention(
                c, dialect, config.source().table(), config.source().sequenceColumn()));
  }

  /** What works on a connection of its own, which it then owns. */
  @FunctionalInterface
  private interface OnConnection<T> {
    T take(Connection c) throws SQLException;
  }

  /** Connects, bounds idle transactions, and hands the connection over; closes it on failure. */
  private <T> T open(OnConnection<T> user) throws SQLException {
    Connection c = connect();
    try {
      IdleTransactionBound.apply(c, dialect, config.polling().lease());
      return user.take(c);
    } catch (SQLException | RuntimeException e) {
      c.close();
      throw e;
    }
  }

  @Override
  public synchronized void start() throws StartupCheckException, InterruptedException {
    PollingConfig polling = config.polling();
    String context = config.logContext();
    Optional<RowLayout> checked =
        new StartSequence(config, metrics.health(), kafka, LOG)
            .run(stopped::get, (c, report) -> runChecks(c, report, context));
    if (checked.isEmpty()) {
      return; // stopped while waiting for the database or for Kafka
    }
    layout = checked.get();
    EventRouter router = config.eventRouter();
    // One watch for every worker: an aggregate's events may be claimed by any of them.
    VersionWatch versions = VersionWatch.of(config.versionCheck(), metrics, context);
    if (dialect.claimsFromOrderedWindow()) {
      floorCheck = new FloorCheck(context, this::openStore, FloorCheck.PERIOD, FloorCheck.STALE);
      Thread t = new Thread(floorCheck, "polling-floor-check");
      t.setDaemon(true);
      t.start();
      floorCheckThread = t;
    }
    leases = new LeaseKeeper(context, polling.lease(), this::openStore);
    leaseThread = new Thread(leases, "polling-lease-keeper");
    leaseThread.setDaemon(true);
    leaseThread.start();
    OutageLog databaseOutages =
        new OutageLog(
            LOG,
            context,
            "source database " + config.source().describe(),
            "reconnecting every "
                + PollingWorker.RECONNECT_MAX.toSeconds()
                + " s at most; events wait in the table",
            OutageLog.REPEAT,
            Clock.systemDefaultZone());
    for (int i = 1; i <= polling.workers(); i++) {
      PollingWorker w =
          new PollingWorker(
              "worker-" + i,
              context,
              polling,
              this::openStore,
              publisher,
              kafka,
              router,
              versions,
              metrics,
              leases,
              databaseOutages,
              this::fail);
      workers.add(w);
      Thread t = new Thread(w, "polling-worker-" + i);
      threads.add(t);
      t.start();
    }
    if (!polling.retention().isZero()) {
      retention =
          new RetentionTask(
              context,
              this::openRetention,
              polling.retention(),
              polling.retentionBatchSize(),
              polling.retentionInterval());
      Thread t = new Thread(retention, "polling-retention");
      t.setDaemon(true);
      t.start();
    }
    LOG.info(
        "[{}] ready: {} workers claiming due events from {} in {} (batch {}, lease {} s renewed every"
            + " {} ms while a batch is in flight, ordering {})",
        context,
        polling.workers(),
        config.source().table(),
        config.source().describe(),
        polling.batchSize(),
        polling.lease().toSeconds(),
        LeaseKeeper.period(polling.lease()).toMillis(),
        polling.ordering().name().toLowerCase(java.util.Locale.ROOT));
    LOG.info("[{}] reading {}", context, layout.describe());
  }

  /**
   * Polling's startup checks, on the connection the start waited for (in a transaction): the table
   * and its columns, then whether a CDC relay owns it; its advice is logged as warnings.
   *
   * @return how the rows are read
   */
  private RowLayout runChecks(Connection c, StartSequence.Report report, String context)
      throws StartupCheckException, SQLException {
    c.setAutoCommit(false);
    report.refuse(PollingPreflight.check(c, dialect, config.source(), config.polling()));
    RowLayout rows = RowLayout.of(config.source(), OutboxColumns.read(c, config.source()));
    report.refuse(
        PollingPreflight.ownershipProblem(c, dialect, config.source(), context).stream().toList());
    try {
      for (String advice : PollingPreflight.advice(c, dialect, config.source())) {
        report.warn(advice);
      }
    } catch (SQLException e) {
      // Advice only: a user who may not read information_schema runs all the same.
      LOG.debug("[{}] could not check the outbox table's column layout: {}", context, e.toString());
    }
    return rows;
  }

  private void fail(RelayFailure failure) {
    if (termination.completeExceptionally(failure)) {
      workers.forEach(PollingWorker::stop);
    }
  }

  @Override
  public CompletableFuture<Void> termination() {
    return termination;
  }

  @Override
  public void stop(Duration timeout) {
    if (!stopped.compareAndSet(false, true)) {
      return;
    }
    workers.forEach(PollingWorker::stop);
    if (retention != null) {
      retention.stop();
    }
    FloorCheck check = floorCheck;
    Thread checkThread = floorCheckThread;
    if (check != null) {
      check.stop(); // the thread, if not started yet, ends at once when it is
    }
    if (checkThread != null) {
      checkThread.interrupt(); // it sleeps most of the time
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    for (Thread t : threads) {
      try {
        t.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      if (t.isAlive()) {
        LOG.warn(
            "[{}] {} did not finish its batch within {} ms; its events are published again after"
                + " their lease expires",
            config.logContext(),
            t.getName(),
            timeout.toMillis());
        t.interrupt();
      }
    }
    if (leases != null) {
      leases.stop();
      leaseThread.interrupt();
    }
    termination.complete(null);
  }
}
