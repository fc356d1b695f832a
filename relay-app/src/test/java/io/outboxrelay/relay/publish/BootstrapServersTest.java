package io.outboxrelay.relay.publish;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BootstrapServersTest {

  @Test
  void reportsHostsThatDoNotResolve() {
    assertThat(BootstrapServers.unresolvable("kafka.invalid:9092"))
        .containsExactly("kafka.invalid:9092 (unknown host)");
    assertThat(BootstrapServers.unresolvable("127.0.0.1:9092, kafka.invalid:9092"))
        .containsExactly("kafka.invalid:9092 (unknown host)");
  }

  @Test
  void acceptsAddressesAndNamesThatResolve() {
    assertThat(BootstrapServers.unresolvable("127.0.0.1:9092,localhost:9093,[::1]:9094")).isEmpty();
  }

  @Test
  void reportsEntriesWithoutAPort() {
    assertThat(BootstrapServers.unresolvable("localhost"))
        .containsExactly("localhost (not host:port)");
  }

  @Test
  void countsTheEntries() {
    assertThat(BootstrapServers.count("a:1, b:2,,")).isEqualTo(2);
  }
}
