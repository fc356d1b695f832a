package io.outboxrelay.relay.publish;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.utils.AppInfoParser;
import org.junit.jupiter.api.Test;

/**
 * One Kafka version on the classpath: the producer's {@code kafka-clients} and the Connect
 * artifacts Debezium runs on ({@code connect-api}, {@code connect-runtime}, {@code connect-json},
 * ...) must be the release Debezium was built against. Connect and the clients share internal
 * classes ({@code org.apache.kafka.common.*}), so a mix links at startup and fails, at the
 * earliest, when a code path first runs. The root pom's enforcer rule checks the same at build
 * time.
 */
class KafkaVersionsTest {

  /** The Kafka release Debezium 3.5.0.Final is built against. */
  static final String KAFKA = "4.1.1";

  private static final Pattern KAFKA_JAR =
      Pattern.compile(".*/org/apache/kafka/([^/]+)/([^/]+)/\\1-\\2\\.jar$");

  @Test
  void theProducerIsTheKafkaReleaseDebeziumIsBuiltAgainst() {
    assertThat(AppInfoParser.getVersion())
        .as("kafka-clients on the classpath; see docs/upgrading.md, Upgrading Debezium or Kafka")
        .isEqualTo(KAFKA);
  }

  @Test
  void everyKafkaArtifactOnTheClasspathIsOneRelease() {
    Map<String, String> versions = new TreeMap<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      Matcher m = KAFKA_JAR.matcher(entry.replace(File.separatorChar, '/'));
      if (m.matches()) {
        versions.put(m.group(1), m.group(2));
      }
    }
    assertThat(versions)
        .as("the Kafka artifacts on the classpath")
        .containsKeys("kafka-clients", "connect-api", "connect-runtime", "connect-json");
    assertThat(versions)
        .as(
            "every org.apache.kafka artifact must be Kafka %s (pin the odd one out in the root"
                + " pom's dependencyManagement)",
            KAFKA)
        .allSatisfy((artifact, version) -> assertThat(version).as(artifact).isEqualTo(KAFKA));
  }
}
