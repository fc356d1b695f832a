package io.outboxrelay.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The pg-cdc group's options and its targets' lines, from figures made up for the purpose. */
class PgCdcBenchTest {

  @Test
  void runsASmokeRunOfTheRelayAndDebeziumServerUnlessTold() {
    BenchOptions o = BenchOptions.parse(new String[] {"--only", "pg-cdc"});

    assertThat(o.pgCdcEvents()).isEqualTo(PgCdcBench.DEFAULT_EVENTS);
    assertThat(o.pgCdcSeconds()).isEqualTo(PgCdcBench.DEFAULT_SECONDS);
    assertThat(o.pgCdcPeers()).containsExactly(Peer.RELAY, Peer.SERVER);
  }

  @Test
  void takesTheBacklogLoadAndPipelinesGiven() {
    BenchOptions o =
        BenchOptions.parse(
            new String[] {
              "--only", "pg-cdc", "--events", "50000", "--seconds", "30", "--peers", "server"
            });

    assertThat(o.pgCdcEvents()).isEqualTo(50_000);
    assertThat(o.pgCdcSeconds()).isEqualTo(30);
    assertThat(o.pgCdcPeers()).containsExactly(Peer.SERVER);
  }

  @Test
  void reportsBothTargetsMetWhenTheRelayDrainsTwiceAsFastWithinTheLatency() {
    PeerTable table = new PeerTable("t");
    table.add(result(Peer.RELAY, 1, 20_000, 30));
    table.add(result(Peer.RELAY, 2, 24_000, 45));
    table.add(result(Peer.SERVER, 1, 8_000, 900));
    table.add(result(Peer.SERVER, 2, 10_000, 700));

    List<String> lines = PgCdcBench.targets(table);

    assertThat(lines.get(0))
        .contains("2.4x")
        .contains("22,000")
        .contains("9,000")
        .endsWith(": met");
    assertThat(lines.get(1)).contains("45 ms in the worst round").endsWith(": met");
  }

  @Test
  void reportsTargetsNotMetAndLeavesIncompleteRoundsOut() {
    PeerTable table = new PeerTable("t");
    table.add(result(Peer.RELAY, 1, 15_000, 60));
    table.add(result(Peer.SERVER, 1, 10_000, 900));
    // a round that lost an event counts in no figure, however good
    table.add(incomplete(Peer.RELAY, 2, 90_000, 1));

    List<String> lines = PgCdcBench.targets(table);

    assertThat(lines.get(0)).contains("1.5x").endsWith("NOT met");
    assertThat(lines.get(1)).contains("60 ms").endsWith("NOT met");
  }

  @Test
  void saysNotMeasuredWhenAPipelineHasNoCompleteRound() {
    PeerTable table = new PeerTable("t");
    table.add(result(Peer.RELAY, 1, 15_000, 20));

    assertThat(PgCdcBench.targets(table).get(0)).contains("not measured");
  }

  @Test
  void givesWhatTheDrainCostTheWholeMachineAndTheDatabasePerEvent() {
    PeerTable table = new PeerTable("t");
    // 2 CPU s of the machine and 0.5 of the database over a 1,000-event drain
    table.add(result(Peer.RELAY, 1, 20_000, 30));

    assertThat(table.render())
        .contains("| the machine's CPU per event during the drain, all processes (µs) | 2000 |")
        .contains(
            "| the machine's CPU per event during the drain, the database's processes (µs) | 500 |");
  }

  private static PeerResult result(Peer peer, int round, double drainRate, double p99) {
    return result(peer, round, drainRate, p99, 0);
  }

  private static PeerResult incomplete(Peer peer, int round, double drainRate, double p99) {
    return result(peer, round, drainRate, p99, 1);
  }

  private static PeerResult result(
      Peer peer, int round, double drainRate, double p99, long missing) {
    return new PeerResult(
        peer,
        round,
        1_000,
        1,
        drainRate,
        drainRate / 2,
        1,
        1,
        2,
        0.5,
        100,
        1,
        1,
        1.5,
        0.5,
        200,
        0.5,
        audit(missing, p99));
  }

  private static TopicAudit audit(long missing, double p99) {
    return new TopicAudit(
        1_101, missing, 0, 0, 0, List.of("id"), new Percentiles(100, p99 / 2, p99, p99), List.of());
  }
}
