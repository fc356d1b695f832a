package io.outboxrelay.bench;

import io.outboxrelay.testsupport.outbox.RelayProcess;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.stack.KafkaBroker;
import io.outboxrelay.testsupport.stack.MariaDbServer;
import java.nio.file.Path;
import java.util.Map;

/**
 * What every group of the benchmark shares: the shared MariaDB (the recovery group's cases start
 * their own), the broker, the work directory for configurations and relay logs, and the options
 * every relay process gets: its environment ({@code --relay-heap}, {@code --relay-java-opts},
 * {@code --relay-env}) and its setting overrides ({@code --relay-set}).
 *
 * @param mariaDb the shared MariaDB server
 * @param kafka the broker; {@code null} when no chosen group needs one
 * @param workDir configurations and relay logs
 * @param relayEnv environment variables of every relay process
 * @param relaySettings settings added to every relay's
 */
record BenchEnv(
    MariaDbServer mariaDb,
    KafkaBroker kafka,
    Path workDir,
    Map<String, String> relayEnv,
    Map<String, String> relaySettings) {

  /** The broker's bootstrap address. */
  String bootstrapServers() {
    return kafka.bootstrapServers();
  }

  /**
   * Adds the overrides to a relay's settings and writes them to {@code <name>.properties}.
   *
   * @return the file
   */
  Path writeConfig(RelaySettings settings, String name) {
    relaySettings.forEach(settings::with);
    return settings.writeTo(workDir.resolve(name + ".properties"));
  }

  /**
   * Starts {@code outbox-relay run --config <config>} as a child process, logging to {@code
   * <process>.log}.
   *
   * @return the started (not necessarily ready) relay
   */
  RelayProcess startRelay(String process, Path config) {
    return RelayProcess.start(process, workDir, relayEnv, "run", "--config", config.toString());
  }

  /**
   * Starts {@code <launcher> run --config <config>}, another copy's launcher, as {@link
   * #startRelay(String, Path)} does.
   *
   * @return the started (not necessarily ready) relay
   */
  RelayProcess startRelay(Path launcher, String process, Path config) {
    return RelayProcess.start(
        launcher, process, workDir, relayEnv, "run", "--config", config.toString());
  }
}
