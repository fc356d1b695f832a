package io.outboxrelay.bench;

import io.outboxrelay.testsupport.stack.PostgresServer;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The pg-cdc group: the relay's CDC on PostgreSQL ({@code source.flavor=postgresql}) beside
 * Debezium Server with its PostgreSQL connector ({@code pgoutput}), the outbox {@code EventRouter}
 * and its Kafka sink, run by {@link PeerBench} on a private PostgreSQL started for the group (its
 * commits durable: {@code fsync=on}, {@code synchronous_commit=on}) and the bench's broker, the
 * same rows for both; then the group's targets, checked against the figures: the relay drains at
 * least {@link #DRAIN_FACTOR} times as fast as Debezium Server (medians of the complete rounds) and
 * its p99 latency at the steady rate stays within {@link #P99_MILLIS} ms in every complete round.
 */
final class PgCdcBench {

  /** The pg-cdc group's backlog unless {@code --events} is given: a smoke run. */
  static final int DEFAULT_EVENTS = 2_000;

  /** The pg-cdc group's seconds of steady load unless {@code --seconds} is given: a smoke run. */
  static final int DEFAULT_SECONDS = 5;

  /** The pipelines it compares unless {@code --peers} is given. */
  static final List<Peer> DEFAULT_PEERS = List.of(Peer.RELAY, Peer.SERVER);

  static final double DRAIN_FACTOR = 2.0;
  static final double P99_MILLIS = 50;

  private final BenchEnv env;
  private final PeerOptions options;

  PgCdcBench(BenchEnv env, PeerOptions options) {
    this.env = env;
    this.options = options;
  }

  /** Starts the private PostgreSQL, runs the pipelines and adds the targets' lines to the table. */
  void run(PeerTable table, List<Peer> peers, int rounds, int events, int rate, Duration duration)
      throws Exception {
    try (PostgresServer pg =
        PostgresServer.builder()
            .setting("fsync", "on")
            .setting("synchronous_commit", "on")
            .setting("shared_buffers", "256MB")
            .start()) {
      PostgresPeerSource source = new PostgresPeerSource(pg);
      System.err.println("pg-cdc: " + source.label() + " at " + pg.host() + ":" + pg.port());
      new PeerBench(env, options, source).run(table, peers, rounds, events, rate, duration);
      table.note("database: " + source.label() + ", private, fsync=on, shared_buffers=256MB");
      targets(table).forEach(table::note);
    }
  }

  /** One line per target: what it asks, what was measured, met or not. */
  static List<String> targets(PeerTable table) {
    double relay = table.median(Peer.RELAY, PeerResult::drainRate);
    double server = table.median(Peer.SERVER, PeerResult::drainRate);
    double p99 = table.max(Peer.RELAY, r -> r.audit().latency().p99());
    String drain =
        Double.isNaN(relay) || Double.isNaN(server)
            ? "not measured (a pipeline has no complete round)"
            : String.format(
                Locale.ROOT,
                "%.1fx (medians %,.0f and %,.0f events/s): %s",
                relay / server,
                relay,
                server,
                relay >= DRAIN_FACTOR * server ? "met" : "NOT met");
    String latency =
        Double.isNaN(p99)
            ? "not measured"
            : String.format(
                Locale.ROOT,
                "%.0f ms in the worst round: %s",
                p99,
                p99 <= P99_MILLIS ? "met" : "NOT met");
    return List.of(
        String.format(
            Locale.ROOT, "target, relay drain >= %.0fx Debezium Server's: %s", DRAIN_FACTOR, drain),
        String.format(
            Locale.ROOT,
            "target, relay p99 <= %.0f ms at the steady rate: %s",
            P99_MILLIS,
            latency));
  }
}
