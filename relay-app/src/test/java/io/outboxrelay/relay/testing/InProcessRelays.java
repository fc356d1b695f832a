package io.outboxrelay.relay.testing;

import io.outboxrelay.relay.Relay;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@link Relay} objects a test runs in this JVM, built from its settings without the command
 * line, closed after it; {@link InProcessRun} runs the command line itself. Not thread-safe.
 */
public final class InProcessRelays implements AutoCloseable {

  private final List<Relay> relays = new ArrayList<>();

  /**
   * Creates a relay from the settings and starts it; it runs until {@link #stop} or {@link #close}.
   *
   * @param settings the test's settings, parsed by the relay's own loader
   * @return the started relay
   * @throws Exception when it cannot start
   */
  public Relay start(RelaySettings settings) throws Exception {
    Relay relay = Relay.create(settings.parsedBy(Configs::parse));
    relays.add(relay);
    relay.start();
    return relay;
  }

  /** Stops one relay now. */
  public void stop(Relay relay) {
    relay.close();
    relays.remove(relay);
  }

  /** Stops every relay still running. */
  @Override
  public void close() {
    relays.forEach(Relay::close);
    relays.clear();
  }
}
