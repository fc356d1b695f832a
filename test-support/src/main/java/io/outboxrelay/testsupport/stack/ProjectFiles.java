package io.outboxrelay.testsupport.stack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Files of this project that tests, the demo and the benchmark use as they are: the DDL and grants
 * under config/, found from the working directory, which must be inside the project; and the relay
 * distribution, which whoever runs the test or tool names (see {@link #relayLauncher()}).
 */
public final class ProjectFiles {

  private ProjectFiles() {}

  /** The project root (the directory holding config/). */
  public static Path root() {
    Path p = Path.of("").toAbsolutePath();
    while (p != null && !Files.isDirectory(p.resolve("config"))) {
      p = p.getParent();
    }
    if (p == null) {
      throw new IllegalStateException(
          "cannot find the project root from " + Path.of("").toAbsolutePath());
    }
    return p;
  }

  /**
   * The environment variable naming another relay distribution (its {@code outbox-relay} directory,
   * holding {@code bin/} and {@code lib/}), e.g. a saved build of an older version, for the
   * benchmark to run old against new.
   */
  public static final String RELAY_DIST_ENV = "OUTBOX_RELAY_DIST";

  /**
   * The system property naming the relay distribution to run: the build passes it to the
   * integration tests (failsafe's {@code systemPropertyVariables}), so this module does not need to
   * know where relay-app builds its distribution.
   */
  public static final String RELAY_DIST_PROPERTY = "outbox.relay.dist";

  /**
   * The relay launcher, {@code bin/outbox-relay} of the distribution named by {@link
   * #RELAY_DIST_ENV} when it is set, else by {@link #RELAY_DIST_PROPERTY}. Who runs a test, the
   * demo or the benchmark names the distribution: the build for its integration tests, the scripts
   * for the demo and the benchmark; this module does not know where any build puts it.
   *
   * @return the launcher
   * @throws IllegalStateException when neither names a distribution, or the one named has no
   *     launcher
   */
  public static Path relayLauncher() {
    String env = System.getenv(RELAY_DIST_ENV);
    if (env != null && !env.isBlank()) {
      return launcherOf(Path.of(env), RELAY_DIST_ENV + "=" + env, "set it to");
    }
    String property = System.getProperty(RELAY_DIST_PROPERTY);
    if (property != null && !property.isBlank()) {
      return launcherOf(
          Path.of(property),
          "-D" + RELAY_DIST_PROPERTY + "=" + property,
          "run mvn package first, or set it to");
    }
    throw new IllegalStateException(
        "no relay distribution named: set "
            + RELAY_DIST_ENV
            + " or -D"
            + RELAY_DIST_PROPERTY
            + " to an outbox-relay distribution directory (bin/, lib/), as scripts/bench.sh and"
            + " scripts/demo.sh do");
  }

  private static Path launcherOf(Path dist, String source, String advice) {
    Path launcher = dist.toAbsolutePath().resolve("bin/outbox-relay");
    if (!Files.isExecutable(launcher)) {
      throw new IllegalStateException(
          source
              + ": no "
              + launcher
              + "; "
              + advice
              + " an outbox-relay distribution directory (bin/, lib/)");
    }
    return launcher;
  }

  /**
   * The statements of an SQL file under config/, comments removed.
   *
   * @param relative e.g. {@code config/mysql/outbox-schema.sql}
   * @return the statements, without the trailing semicolons
   */
  public static List<String> sqlStatements(String relative) {
    String text;
    try {
      text = Files.readString(root().resolve(relative), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    StringBuilder sql = new StringBuilder();
    for (String line : text.split("\n")) {
      int comment = line.indexOf("--");
      sql.append(comment >= 0 ? line.substring(0, comment) : line).append('\n');
    }
    List<String> statements = new ArrayList<>();
    for (String s : sql.toString().split(";")) {
      if (!s.isBlank()) {
        statements.add(s.trim());
      }
    }
    return statements;
  }
}
