package io.outboxrelay.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.relay.config.RelayMode;
import io.outboxrelay.testsupport.stack.LocalStack;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The demo's whole loop in each relay mode, on the shared local stack with a topic and consumer
 * group of its own: the demo itself throws when any step shows something unexpected. The consumer's
 * version check runs on the relay's real output: each event's aggregate_version header, and a stale
 * copy rejected by it.
 */
class DemoIT {

  @ParameterizedTest
  @EnumSource(RelayMode.class)
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void runsTheWholeLoopAndIgnoresTheRedeliveredOrderPaidAndTheStaleOrderCreated(
      RelayMode mode, @TempDir Path work) throws Exception {
    LocalStack stack = LocalStack.shared();
    String unique = DemoOptions.of(mode).modeName() + "-" + Long.toHexString(System.nanoTime());
    DemoOptions options =
        new DemoOptions(mode, "it-" + unique + ".outbox.event.", "notifications-" + unique);
    ByteArrayOutputStream console = new ByteArrayOutputStream();
    try (PrintStream out = new PrintStream(console, true, StandardCharsets.UTF_8)) {
      Demo.run(stack.mariaDb(), stack.kafka(), options, work, out);
    } finally {
      System.out.print(console.toString(StandardCharsets.UTF_8));
    }

    assertThat(console.toString(StandardCharsets.UTF_8))
        .contains("(" + options.modeName() + " mode)")
        .contains("consumer: DUPLICATE, ignored")
        .contains("consumer: STALE, rejected by version (1 is not above 2), not by event id")
        .contains("aggregate_version=2")
        .contains("customer_orders unchanged")
        .contains("relay exit code 0");
  }
}
