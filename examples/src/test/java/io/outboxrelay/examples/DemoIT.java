package io.outboxrelay.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.relay.config.RelayMode;
import io.outboxrelay.testsupport.stack.LocalStack;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The demo's whole loop in each relay mode, on the shared local stack with a topic and consumer
 * group of its own: the demo itself throws when any step shows something unexpected. The consumer's
 * version check runs on the relay's real output: each event's aggregate_version header, and a stale
 * copy rejected by it. The trace of each event is checked from the console too: the request span
 * the demo printed at the order service, the traceparent it printed from the Kafka headers and the
 * consumer span it printed at the notification service name the same trace and span.
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
        .contains("relay exit code 0")
        .contains(
            "trace ids at the service, in the Kafka headers and in the consumer spans agree: yes");

    String text = console.toString(StandardCharsets.UTF_8);
    List<String> service =
        traceAndSpan(text, "service span trace=(\\p{XDigit}{32}) span=(\\p{XDigit}{16})");
    List<String> kafka =
        traceAndSpan(text, "traceparent=00-(\\p{XDigit}{32})-(\\p{XDigit}{16})-\\p{XDigit}{2}");
    List<String> consumer =
        traceAndSpan(text, "consumer span trace=(\\p{XDigit}{32}) parent=(\\p{XDigit}{16})");
    assertThat(service).as("one request span per event written").hasSize(5).doesNotHaveDuplicates();
    assertThat(kafka).as("the traceparent headers").containsExactlyInAnyOrderElementsOf(service);
    assertThat(consumer)
        .as("the consumer spans' trace and parent")
        .containsExactlyInAnyOrderElementsOf(service);
  }

  /** Every {@code trace/span} pair the pattern's two groups match in the console's text. */
  private static List<String> traceAndSpan(String text, String regex) {
    return Pattern.compile(regex)
        .matcher(text)
        .results()
        .map(m -> m.group(1) + "/" + m.group(2))
        .toList();
  }
}
