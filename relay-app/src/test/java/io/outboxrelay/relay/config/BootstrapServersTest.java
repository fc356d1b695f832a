package io.outboxrelay.relay.config;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class BootstrapServersTest {

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "k1:9092",
        "k1:9092,k2:9093, k3:1",
        "kafka-1.internal.example.com:65535",
        "kafka_1:9092",
        "10.0.0.7:9092",
        "[::1]:9092",
        "[2001:db8::17]:9092",
        "[fe80::1%eth0]:9092",
        "[::ffff:10.0.0.7]:9092",
        "k1:9092,", // Kafka skips empty entries
        "kafka.invalid:9092" // well-formed; whether it resolves is checked at startup
      })
  void acceptsHostPortEntries(String servers) {
    assertThat(BootstrapServers.problems(servers)).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      value = {
        "k1 | 'k1' has no port: write host:port, e.g. k1:9092",
        "k1: | 'k1:' has no port: write host:port, e.g. k1:9092",
        "k1:0 | 'k1:0' has port '0': a port is a number from 1 to 65535",
        "k1:65536 | 'k1:65536' has port '65536': a port is a number from 1 to 65535",
        "k1:99999999999 | 'k1:99999999999' has port '99999999999': a port is a number from 1 to"
            + " 65535",
        "k1:90x2 | 'k1:90x2' has port '90x2': a port is a number from 1 to 65535",
        ":9092 | ':9092' has no host: write host:port, e.g. kafka-1:9092",
        "::1:9092 | '::1:9092' looks like an IPv6 address without brackets: write [::1]:9092",
        "[::1 | '[::1' has no closing ]: write an IPv6 address as [address]:port, e.g."
            + " [::1]:9092",
        "[::1] | '[::1]' has no port: write [address]:port, e.g. [::1]:9092",
        "[k1]:9092 | '[k1]:9092': only an IPv6 address goes in brackets, e.g. [::1]:9092",
        "PLAINTEXT://k1:9092 | 'PLAINTEXT://k1:9092' has a scheme: write host:port (k1:9092);"
            + " the security protocol is set by kafka.producer.security.protocol",
        "k1:9092 k2:9092 | 'k1:9092 k2:9092' contains a space: separate servers with commas, e.g."
            + " k1:9092,k2:9092",
        "k1!:9092 | 'k1!:9092': 'k1!' is not a host name or address (letters, digits, '-', '_'"
            + " and dots)",
        "-k1:9092 | '-k1:9092': '-k1' is not a host name or address (letters, digits, '-', '_'"
            + " and dots)"
      })
  void refusesMalformedEntriesSayingWhatToWrite(String servers, String problem) {
    assertThat(BootstrapServers.problems(servers))
        .containsExactly("kafka.bootstrap.servers: " + problem);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"k1,k2:0,k3:9092,[::1]"})
  void reportsEachBadEntryOnItsOwnLine(String servers) {
    assertThat(BootstrapServers.problems(servers))
        .hasSize(3)
        .allSatisfy(p -> assertThat(p).startsWith("kafka.bootstrap.servers: '"));
  }

  // ---------------------------------------------------------------- resolution at startup

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
  void reportsEntriesWithoutAPortAsUnresolvable() {
    assertThat(BootstrapServers.unresolvable("localhost"))
        .containsExactly("localhost (not host:port)");
  }

  @Test
  void countsTheEntries() {
    assertThat(BootstrapServers.count("a:1, b:2,,")).isEqualTo(2);
  }
}
