package io.outboxrelay.relay.cli;

import io.outboxrelay.relay.config.ConfigException;
import io.outboxrelay.relay.config.ConfigLoader;
import io.outboxrelay.relay.config.RelayConfig;
import io.outboxrelay.relay.config.RelayMode;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The options every command that reads a configuration shares. */
final class ConfigOptions {

  @Option(
      names = {"-c", "--config"},
      required = true,
      paramLabel = "FILE",
      description = "The relay properties file (see config/relay.properties.example).")
  Path config;

  @Option(
      names = "--mode",
      paramLabel = "MODE",
      description = "cdc or polling; overrides the mode key of the file.")
  RelayMode mode;

  /**
   * Loads the configuration, printing every problem to {@code err}.
   *
   * @return the configuration, or {@code null} after printing the problems
   */
  RelayConfig load(PrintWriter err) {
    try {
      return new ConfigLoader(System.getenv()).load(config, mode);
    } catch (ConfigException e) {
      err.println(
          "Invalid configuration in "
              + config
              + " ("
              + e.problems().size()
              + (e.problems().size() == 1 ? " problem" : " problems")
              + "):");
      e.problems().forEach(p -> err.println("  - " + p));
      e.warnings().forEach(w -> err.println("  warning: " + w));
      err.flush();
      return null;
    } catch (NoSuchFileException e) {
      err.println(
          "Configuration file " + config + " does not exist: pass an existing file with --config");
      err.flush();
      return null;
    } catch (IOException e) {
      err.println("Cannot read configuration file " + config + ": " + e.getMessage());
      err.flush();
      return null;
    }
  }
}
