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
      err.println("Cannot read configuration file " + config + ": " + reason(e));
      err.flush();
      return null;
    }
  }

  /**
   * Why a file cannot be read, in words: the JDK's file exceptions carry only the path as their
   * message, which would repeat the file's name instead of saying what is wrong.
   */
  static String reason(IOException e) {
    if (e instanceof java.nio.file.AccessDeniedException) {
      return "permission denied: give the relay's user read access to it";
    }
    if (e instanceof java.nio.file.FileSystemException fs) {
      String why = fs.getReason();
      if (why != null && !why.isBlank()) {
        return why;
      }
    }
    if (e instanceof java.nio.charset.CharacterCodingException) {
      return "it is not valid UTF-8 text: save it as UTF-8";
    }
    String message = e.getMessage();
    if (message == null || message.isBlank()) {
      return e.getClass().getSimpleName();
    }
    return e.getClass() == IOException.class
        ? message
        : e.getClass().getSimpleName() + ": " + message;
  }
}
