package io.outboxrelay.relay.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.relay.metrics.RelayHealth.Dependency;
import io.outboxrelay.relay.metrics.RelayHealth.Readiness;
import org.junit.jupiter.api.Test;

class RelayHealthTest {

  private final RelayHealth health = new RelayMetrics().health();

  @Test
  void isNotReadyWhileStartingAndReadyOnceRunning() {
    assertThat(health.readiness()).isEqualTo(new Readiness(false, "starting"));
    health.running();
    assertThat(health.readiness()).isEqualTo(new Readiness(true, "ready"));
    health.stopping();
    assertThat(health.readiness()).isEqualTo(new Readiness(false, "stopping"));
  }

  @Test
  void oneReporterSeeingADependencyDownIsEnoughAndOnlyItsOwnUpClearsIt() {
    health.running();
    health.down(Dependency.KAFKA, "probe", "timed out");
    health.down(Dependency.KAFKA, "breaker", "claiming paused");
    health.up(Dependency.KAFKA, "probe");
    assertThat(health.readiness()).isEqualTo(new Readiness(false, "Kafka unreachable"));
    assertThat(health.reachable(Dependency.KAFKA)).isZero();
    health.up(Dependency.KAFKA, "breaker");
    assertThat(health.readiness().ready()).isTrue();
    assertThat(health.reachable(Dependency.KAFKA)).isOne();
  }

  @Test
  void saysTheDatabaseFirstWhenBothAreDown() {
    health.running();
    health.down(Dependency.KAFKA, "probe", "x");
    health.down(Dependency.DATABASE, "polling-stats", "y");
    assertThat(health.readiness().reason()).isEqualTo("database unreachable");
  }

  @Test
  void namesAHostThatDoesNotResolveYetWhileStartingAndForgetsItOnceItDoes() {
    health.down(Dependency.KAFKA, "probe", "no resolvable bootstrap urls");
    health.down(
        Dependency.KAFKA,
        RelayHealth.RESOLVING,
        "kafka.bootstrap.servers do not resolve yet (k:1)");
    assertThat(health.readiness().reason())
        .isEqualTo("starting: Kafka unreachable: kafka.bootstrap.servers do not resolve yet (k:1)");

    health.up(Dependency.KAFKA, RelayHealth.RESOLVING);
    assertThat(health.readiness().reason()).isEqualTo("starting: Kafka unreachable");
  }

  @Test
  void forgetsWhatChecksReportedWhileStarting() {
    health.down(Dependency.KAFKA, "probe", "not yet");
    health.running();
    assertThat(health.readiness().ready()).isTrue();
  }

  @Test
  void staysLiveWhileADependencyIsDownAndWhileStarting() {
    assertThat(health.live()).isTrue();
    health.running();
    assertThat(health.live()).isTrue();
    health.down(Dependency.DATABASE, "cdc-stats", "disconnected");
    assertThat(health.live()).isTrue();
  }
}
