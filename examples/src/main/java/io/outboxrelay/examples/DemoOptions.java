package io.outboxrelay.examples;

import io.outboxrelay.relay.config.RelayMode;
import java.util.Locale;
import java.util.Objects;

/**
 * What the demo runs, and the names it uses on the Kafka broker. Immutable.
 *
 * @param mode how the relay finds new outbox rows
 * @param topicPrefix prefix of the relay's topics: the order events go to {@code prefix + "order"}
 * @param consumerGroup the notification service's consumer group
 */
public record DemoOptions(RelayMode mode, String topicPrefix, String consumerGroup) {

  /** The command line, as printed when it is wrong. */
  public static final String USAGE = "usage: Demo [--mode cdc|polling]   (default: cdc)";

  /**
   * Checks that nothing is {@code null}.
   *
   * @throws NullPointerException if a parameter is {@code null}
   */
  public DemoOptions {
    Objects.requireNonNull(mode, "mode");
    Objects.requireNonNull(topicPrefix, "topicPrefix");
    Objects.requireNonNull(consumerGroup, "consumerGroup");
  }

  /**
   * The demo's names: topic {@code outbox.event.order}, consumer group {@code notifications}.
   *
   * @param mode the relay mode
   * @return the options
   */
  public static DemoOptions of(RelayMode mode) {
    return new DemoOptions(mode, "outbox.event.", "notifications");
  }

  /**
   * Parses the demo's command line: {@code --mode cdc|polling} or {@code --mode=cdc|polling}, CDC
   * if absent.
   *
   * @param args the arguments
   * @return the options with the demo's names
   * @throws IllegalArgumentException naming an unknown argument or mode
   */
  public static DemoOptions parse(String... args) {
    RelayMode mode = RelayMode.CDC;
    for (int i = 0; i < args.length; i++) {
      String value;
      if (args[i].startsWith("--mode=")) {
        value = args[i].substring("--mode=".length());
      } else if (args[i].equals("--mode") && i + 1 < args.length) {
        value = args[++i];
      } else {
        throw new IllegalArgumentException("unknown or incomplete argument: " + args[i]);
      }
      mode =
          switch (value.toLowerCase(Locale.ROOT)) {
            case "cdc" -> RelayMode.CDC;
            case "polling" -> RelayMode.POLLING;
            default -> throw new IllegalArgumentException("--mode is cdc or polling, not " + value);
          };
    }
    return of(mode);
  }

  /** The topic of the order events. */
  public String orderTopic() {
    return topicPrefix + "order";
  }

  /** The mode as written on the command line and in the relay's configuration. */
  public String modeName() {
    return mode.name().toLowerCase(Locale.ROOT);
  }
}
