package io.outboxrelay.relay.cli;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns SIGTERM and SIGINT into a graceful stop instead of an immediate JVM shutdown, so the relay
 * can drain and then exit with code 0. Falls back to a shutdown hook where the JVM does not allow
 * signal handlers.
 */
final class Signals {

  private static final Logger LOG = LoggerFactory.getLogger(Signals.class);

  private Signals() {}

  @SuppressWarnings("removal")
  static void onTerminate(Runnable action) {
    try {
      for (String name : new String[] {"TERM", "INT"}) {
        sun.misc.Signal.handle(new sun.misc.Signal(name), sig -> action.run());
      }
    } catch (IllegalArgumentException | UnsupportedOperationException | LinkageError e) {
      LOG.warn("Cannot handle signals ({}); relying on a shutdown hook", e.toString());
      Runtime.getRuntime().addShutdownHook(new Thread(action, "relay-shutdown"));
    }
  }
}
