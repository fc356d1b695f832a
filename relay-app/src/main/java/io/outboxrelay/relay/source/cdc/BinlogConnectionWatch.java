package io.outboxrelay.relay.source.cdc;

import io.outboxrelay.relay.config.SourceConfig;
import io.outboxrelay.relay.metrics.OutageLog;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the operator when the binlog connection is lost and when it is back, through an {@link
 * OutageLog}. It only watches: reconnecting is the binlog client's keepalive thread's job (see
 * {@link DebeziumProperties#KEEPALIVE}).
 *
 * <p>Every {@link #PERIOD} it reads Debezium's streaming metrics. The connection counts as lost
 * once the client has been disconnected for {@link #GRACE} while Debezium's queue had room: with a
 * full queue the reader waits for the relay (Kafka is slow or down), not for the database, and the
 * client may reconnect after such a wait, which takes milliseconds once the queue drains. A server
 * that went silent is disconnected by the client 3-6 s after the last thing it sent; the outage is
 * then dated from that last receipt.
 *
 * <p>Owns one daemon thread between {@link #start()} and {@link #close()}; thread-safe.
 */
final class BinlogConnectionWatch implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(BinlogConnectionWatch.class);

  /** How often the metrics are read. */
  static final Duration PERIOD = Duration.ofMillis(250);

  /** How long the client must stay disconnected before the loss is reported. */
  static final Duration GRACE = Duration.ofSeconds(1);

  /** The longest the check whether the database answers may take. */
  static final Duration ANSWER_TIMEOUT = Duration.ofMillis(1500);

  /** The cause under which this watch reports to a shared {@link OutageLog}. */
  static final String CAUSE = "binlog";

  private final Supplier<Optional<StreamingProbe.Sample>> probe;
  private final OutageLog outages;
  private final Duration keepalive;
  private final Clock clock;
  private final BooleanSupplier databaseAnswers;
  private Instant answeredAt; // when the database last answered during this disconnection
  private ScheduledExecutorService timer;
  private Instant disconnectedAt; // first reading without a connection, null while connected
  private long silentSeconds; // how long nothing had been received at that reading

  /**
   * Creates a watch.
   *
   * @param probe reads the streaming metrics
   * @param outages where outages are told
   * @param keepalive the binlog client's keepalive interval
   * @param clock the wall clock
   */
  BinlogConnectionWatch(
      Supplier<Optional<StreamingProbe.Sample>> probe,
      OutageLog outages,
      Duration keepalive,
      Clock clock,
      BooleanSupplier databaseAnswers) {
    this.probe = probe;
    this.outages = outages;
    this.keepalive = keepalive;
    this.clock = clock;
    this.databaseAnswers = databaseAnswers;
  }

  /**
   * A watch that reports to the source database's outage log, under {@link #CAUSE}.
   *
   * @param probe the streaming metrics
   * @param outages the source database's outage log, shared with the leadership renewals
   * @param keepalive the binlog client's keepalive interval
   * @return the watch, not started
   */
  static BinlogConnectionWatch of(
      StreamingProbe probe, OutageLog outages, Duration keepalive, SourceConfig source) {
    return new BinlogConnectionWatch(
        probe::sample, outages, keepalive, Clock.systemDefaultZone(), () -> answers(source));
  }

  /**
   * Whether the source database accepts a connection within {@link #ANSWER_TIMEOUT}: a binlog
   * reader the server dropped while it answers (its position purged, another reader with its server
   * id) has lost no database, and the engine reports why it stopped.
   */
  static boolean answers(SourceConfig source) {
    String url =
        source.flavor().jdbcPrefix()
            + source.host()
            + ":"
            + source.port()
            + "/"
            + source.database()
            + "?connectTimeout="
            + ANSWER_TIMEOUT.toMillis()
            + "&socketTimeout="
            + ANSWER_TIMEOUT.toMillis();
    try (java.sql.Connection c =
        java.sql.DriverManager.getConnection(url, source.user(), source.password().reveal())) {
      return true;
    } catch (java.sql.SQLException e) {
      return false;
    }
  }

  /**
   * The outage log of a CDC relay's source database, shared by the binlog watch of every term and
   * the leadership renewals.
   *
   * @param context the log prefix
   * @param source the source database
   * @param keepalive the binlog client's keepalive interval
   * @return the log
   */
  static OutageLog sourceOutages(String context, SourceConfig source, Duration keepalive) {
    return new OutageLog(
        LOG,
        context,
        "source database " + source.describe(),
        "reconnecting every "
            + keepalive.toSeconds()
            + " s; events committed meanwhile are published once it is back",
        OutageLog.REPEAT,
        Clock.systemDefaultZone());
  }

  /** Starts watching on a daemon thread. */
  synchronized void start() {
    if (timer != null) {
      return;
    }
    timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "cdc-binlog-watch");
              t.setDaemon(true);
              return t;
            });
    timer.scheduleWithFixedDelay(
        this::check, PERIOD.toMillis(), PERIOD.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Reads the metrics once and reports what changed; the timer calls it, tests call it. */
  synchronized void check() {
    Optional<StreamingProbe.Sample> reading = probe.get();
    if (reading.isEmpty()) {
      return; // the streaming metrics are not registered: nothing to tell
    }
    StreamingProbe.Sample sample = reading.get();
    Instant now = clock.instant();
    if (sample.connected()) {
      disconnectedAt = null;
      answeredAt = null;
      outages.up(CAUSE, "publishing resumes from where it stopped");
      return;
    }
    if (sample.queueFull()) {
      disconnectedAt = null; // the reader waits for the relay, not for the database
      return;
    }
    if (disconnectedAt == null) {
      disconnectedAt = now;
      silentSeconds = Math.max(0, sample.secondsSinceLastEvent());
    }
    if (Duration.between(disconnectedAt, now).compareTo(GRACE) < 0) {
      return;
    }
    // A database that answers is not unreachable: the server dropped the reader for a reason the
    // engine reports itself (a purged position, another reader with its server id), or the
    // client is reconnecting. Asked again at most every keepalive interval.
    if (answeredAt != null && Duration.between(answeredAt, now).compareTo(keepalive) < 0) {
      return;
    }
    if (databaseAnswers.getAsBoolean()) {
      answeredAt = clock.instant();
      return;
    }
    answeredAt = null;
    // A closed connection is seen at once; a silent one only when the client gives up on it, after
    // at least the keepalive interval without anything received: date that outage from the silence.
    boolean silent = silentSeconds >= keepalive.toSeconds();
    Instant from = silent ? disconnectedAt.minusSeconds(silentSeconds) : disconnectedAt;
    outages.down(
        CAUSE,
        from,
        silent
            ? "the binlog connection went silent (nothing received, not even the server's"
                + " heartbeat) and was dropped"
            : "the binlog connection was closed");
  }

  /** Stops watching. Idempotent. */
  @Override
  public synchronized void close() {
    if (timer != null) {
      timer.shutdownNow();
    }
  }
}
