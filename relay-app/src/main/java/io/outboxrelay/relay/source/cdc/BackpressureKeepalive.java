package io.outboxrelay.relay.source.cdc;

import com.github.shyiko.mysql.binlog.BinaryLogClient;
import io.debezium.pipeline.ChangeEventSourceCoordinator;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the binlog client from taking backpressure for a dead server.
 *
 * <p>Why: with heartbeats on, the client's keepalive thread reconnects once its reader has read
 * nothing for {@code connect.keep.alive.interval.ms} (3 s). While Debezium's queue is full (Kafka
 * slow or down), the reader is blocked handing an event to the queue and reads nothing, so such a
 * wait longer than the interval made the client reconnect, and the rows already queued of the
 * transaction it was reading were published again once Kafka was back. While the queue is full,
 * this marks the client as having received something {@link #SLACK} from now (its private {@code
 * eventLastSeen}, the clock its keepalive check reads). The mark lies ahead so that a stall of the
 * whole process (a long GC pause, a starved CPU) that delays this thread past the client's interval
 * does not count as silence: the client's check runs first when both wake. The marks go on for
 * {@link #HOLD} after the queue was last full: when Kafka comes back, the relay catches up with a
 * burst of sends and the restarted broker competes for the CPU, and a reader slow to get going
 * again in that moment (seen once under a loaded test machine: a reconnect as the queue began to
 * drain) must not be taken for a silent server either. After that the client's own check applies
 * unchanged, so a server that went away meanwhile is still noticed, 3-11 s after the queue drained.
 *
 * <p>It writes one private field of the binlog client by reflection (mysql-binlog-connector-java
 * 0.40, which Debezium 3.5.0 uses). When it is missing, {@link #install} returns empty and the
 * client reconnects on a full queue as before; a test fails if that happens with the pinned
 * version. Owns one daemon thread between {@link #install} and {@link #close()}; thread-safe.
 */
final class BackpressureKeepalive implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(BackpressureKeepalive.class);

  /** How often the queue is looked at: well within the client's 3 s keepalive interval. */
  static final Duration PERIOD = Duration.ofMillis(500);

  /**
   * How far ahead of now a full queue marks the last receipt: a stall of up to the keepalive
   * interval plus this much is not taken for a silent server.
   */
  static final Duration SLACK = Duration.ofSeconds(2);

  /** How long after the queue was last full its reader is still given the benefit of the doubt. */
  static final Duration HOLD = Duration.ofSeconds(5);

  private final ScheduledExecutorService timer;

  private BackpressureKeepalive(ScheduledExecutorService timer) {
    this.timer = timer;
  }

  /**
   * Starts keeping the binlog client of a started connector task connected while its queue is full.
   *
   * @param coordinator what the task's {@code start} returned
   * @param queueFull whether the task's queue is full (the reader then waits for room)
   * @return the running keepalive, or empty (with a warning) when Debezium or its binlog client is
   *     not the expected version
   */
  static Optional<BackpressureKeepalive> install(
      ChangeEventSourceCoordinator<?, ?> coordinator, BooleanSupplier queueFull) {
    try {
      return Optional.of(install(StatementGuard.clientOf(coordinator), queueFull));
    } catch (ReflectiveOperationException | RuntimeException e) {
      LOG.warn(
          "Cannot keep the binlog connection while Kafka holds the relay back ({}): a wait of"
              + " more than 3 s with a full queue makes the binlog client reconnect, and rows of"
              + " the transaction it was reading are published again",
          e.toString());
      return Optional.empty();
    }
  }

  /**
   * Starts keeping a binlog client's receipt clock current while a queue is full, and for {@link
   * #HOLD} after.
   *
   * @param client the binlog client
   * @param queueFull whether the queue is full
   * @return the running keepalive
   * @throws NoSuchFieldException when the client is not the expected version
   */
  static BackpressureKeepalive install(BinaryLogClient client, BooleanSupplier queueFull)
      throws NoSuchFieldException {
    Field lastSeen = StatementGuard.field(BinaryLogClient.class, "eventLastSeen");
    ScheduledExecutorService timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "cdc-backpressure-keepalive");
              t.setDaemon(true);
              return t;
            });
    long[] lastFullAt = {Long.MIN_VALUE}; // the timer's own: one thread reads and writes it
    timer.scheduleWithFixedDelay(
        () -> {
          long now = System.currentTimeMillis();
          if (queueFull.getAsBoolean()) {
            lastFullAt[0] = now;
          }
          if (lastFullAt[0] != Long.MIN_VALUE && now - lastFullAt[0] <= HOLD.toMillis()) {
            try {
              lastSeen.setLong(client, now + SLACK.toMillis());
            } catch (IllegalAccessException | RuntimeException e) {
              LOG.debug("could not mark the binlog client's last receipt", e);
            }
          }
        },
        PERIOD.toMillis(),
        PERIOD.toMillis(),
        TimeUnit.MILLISECONDS);
    return new BackpressureKeepalive(timer);
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
