package io.outboxrelay.testsupport.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class BrokerClasspathTest {

  @Test
  void theBuildWritesTheRuntimeClasspathWithKafkaAndExactlyOneSlf4jBinding() {
    List<String> jars =
        Arrays.stream(BrokerClasspath.read().split(":"))
            .map(path -> path.substring(path.lastIndexOf('/') + 1))
            .toList();

    assertThat(jars)
        .anyMatch(jar -> jar.startsWith("kafka_2.13-"))
        .anyMatch(jar -> jar.startsWith("kafka-clients-"))
        .anyMatch(jar -> jar.startsWith("log4j-core-"))
        .anyMatch(jar -> jar.startsWith("slf4j-api-1.7."));
    assertThat(jars.stream().filter(jar -> jar.startsWith("log4j-slf4j"))).hasSize(1);
    assertThat(jars)
        .noneMatch(jar -> jar.startsWith("log4j-slf4j2-impl"))
        .noneMatch(jar -> jar.startsWith("slf4j-reload4j"))
        .noneMatch(jar -> jar.startsWith("logback-classic"))
        .noneMatch(jar -> jar.startsWith("junit"));
  }

  @Test
  void rejectsAClasspathThatNamesMissingFiles() {
    assertThatThrownBy(() -> BrokerClasspath.check("/nonexistent/kafka.jar"))
        .isInstanceOf(LocalStackException.class)
        .hasMessageContaining("/nonexistent/kafka.jar")
        .hasMessageContaining("rebuild test-support");
  }
}
