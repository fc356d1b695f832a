package io.outboxrelay.bench;

import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RelayProcess;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The relay in CDC mode, from its distribution, with what it needs on the run's database ({@link
 * PeerSource#relaySettings}) and the benchmark's relay options ({@code --relay-heap}, {@code
 * --relay-set}...; its heap is 256 MB unless set).
 */
final class RelayPipeline implements Pipeline {

  private final BenchEnv env;
  private final Path config;

  RelayPipeline(
      BenchEnv env, PeerSource source, OutboxDatabase db, String name, String topicPrefix) {
    this.env = env;
    RelaySettings settings =
        source
            .relaySettings(db, env.bootstrapServers(), name)
            .with("router.topic.template", topicPrefix + "${aggregate_type}")
            .with("relay.stats.interval", "10s");
    this.config = env.writeConfig(settings, name);
  }

  @Override
  public Started start(String process) {
    RelayProcess relay = env.startRelay(process, config);
    return new Started() {
      @Override
      public long pid() {
        return relay.process().pid();
      }

      @Override
      public void awaitCapturing() {
        relay.awaitReady();
      }

      @Override
      public void stop() {
        relay.process().terminate();
        relay.waitFor(Duration.ofSeconds(60));
      }
    };
  }
}
