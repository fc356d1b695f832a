package io.outboxrelay.bench;

import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RelayProcess;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The relay restarted while the name of its database does not resolve, as a compose service or a
 * Kubernetes Service without ready pods: the relay's {@code source.host} is a name of {@code
 * /etc/hosts}; the running relay is stopped, the name removed, a new relay started, and the name
 * added again after a while. A relay that exits is restarted as by a {@link CrashLoopSupervisor};
 * the figure is the time from the name resolving again to the first event published. Needs root (it
 * edits {@code /etc/hosts}, and puts it back as it was when the JVM exits). CDC mode.
 */
final class UnresolvedHostAtStart implements RecoveryBench.Fault {

  private static final Path HOSTS = Path.of("/etc/hosts");

  private final Duration down;
  private final String host = "outbox-relay-bench-" + ProcessHandle.current().pid() + ".test";
  private final String line = "127.0.0.1 " + host;
  private volatile List<String> original;

  /**
   * @param down how long the name does not resolve after the new relay started
   */
  UnresolvedHostAtStart(Duration down) {
    this.down = down;
  }

  @Override
  public String id() {
    return "dns-at-start";
  }

  @Override
  public String description() {
    return "CDC, relay restarted while source.host does not resolve, the name resolving again "
        + down.toSeconds()
        + " s later; a relay that exits is restarted with a crash-loop backoff (10 s, 20 s, 40"
        + " s...)";
  }

  @Override
  public String target() {
    return "first event <= 5 s after the name resolves, without a restart";
  }

  @Override
  public RelaySettings settings(OutboxDatabase db, String bootstrap, String name) {
    addName(); // the first relay starts with the name resolving
    return RelaySettings.cdc(db, bootstrap, name)
        .with("source.host", host)
        .with("relay.stats.interval", "10s");
  }

  @Override
  public void begin(RecoveryBench.World world) throws IOException {
    for (RelayProcess relay : world.relays()) {
      relay.process().terminate();
      relay.waitFor(Duration.ofSeconds(60));
    }
    Files.write(HOSTS, original, StandardCharsets.UTF_8);
    CrashLoopSupervisor.start(world.startRelay(), world.relays().size() + 1);
  }

  @Override
  public long end(RecoveryBench.World world) throws Exception {
    Thread.sleep(down.toMillis());
    addName();
    return System.currentTimeMillis();
  }

  private synchronized void addName() {
    try {
      if (original == null) {
        original = Files.readAllLines(HOSTS, StandardCharsets.UTF_8);
        List<String> restore = original;
        Runtime.getRuntime()
            .addShutdownHook(
                new Thread(
                    () -> {
                      try {
                        Files.write(HOSTS, restore, StandardCharsets.UTF_8);
                      } catch (IOException e) {
                        System.err.println("could not restore /etc/hosts: " + e);
                      }
                    },
                    "bench-hosts-restore"));
      }
      List<String> lines = new java.util.ArrayList<>(original);
      lines.add(line);
      Files.write(HOSTS, lines, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException(
          "cannot edit /etc/hosts (the dns-at-start case needs root)", e);
    }
  }
}
