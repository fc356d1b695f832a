package io.outboxrelay.relay.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine;

/** Reads the version written into the jar at build time. */
final class VersionProvider implements CommandLine.IVersionProvider {

  static String version() {
    Properties p = new Properties();
    try (InputStream in = VersionProvider.class.getResourceAsStream("version.properties")) {
      if (in != null) {
        p.load(in);
      }
    } catch (IOException e) {
      // fall through to "unknown"
    }
    return p.getProperty("version", "unknown");
  }

  @Override
  public String[] getVersion() {
    return new String[] {
      "outbox-relay " + version(),
      "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vendor") + ")"
    };
  }
}
