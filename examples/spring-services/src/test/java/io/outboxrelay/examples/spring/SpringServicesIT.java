package io.outboxrelay.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.testsupport.stack.LocalStack;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Spring Boot services demo on the local stack with the relay distribution: it checks each step
 * itself (every event applied once, each consumer span a child of the request span that wrote its
 * event, a redelivery skipped, a refused event rolled back with its processed_events row and
 * dead-lettered, the services' meters) and throws when a step shows something else; this test also
 * checks what it reported.
 */
class SpringServicesIT {

  @TempDir Path work;

  @Test
  void runsTheOrderAndNotificationServicesThroughTheRelay() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    List<String> report;
    try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
      report =
          SpringServicesDemo.run(
              LocalStack.shared().mariaDb(), LocalStack.shared().kafka(), work, out);
    }
    assertThat(report)
        .anySatisfy(l -> assertThat(l).contains("the failing order rolled back"))
        .anySatisfy(
            l ->
                assertThat(l)
                    .contains("each of the 6 consumer spans is a child of the request span"))
        .anySatisfy(l -> assertThat(l).contains("skipped as a duplicate by its event id"))
        .anySatisfy(l -> assertThat(l).contains("3 attempts rolled back"))
        .anySatisfy(l -> assertThat(l).contains("outbox.writer.events.appended 7"))
        .anySatisfy(
            l ->
                assertThat(l)
                    .contains(
                        "outbox.consumer.events{consumer.group=notifications} {processed=6,"
                            + " duplicate=1, stale=0, conflict=0, failed=3}"))
        .anySatisfy(l -> assertThat(l).contains("relay stopped with exit code 0"));
  }
}
