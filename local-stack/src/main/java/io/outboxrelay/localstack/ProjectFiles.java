package io.outboxrelay.localstack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Files of this project that tests, the demo and the benchmark use as they are: the DDL and grants
 * under config/, and the relay distribution built by {@code mvn package}. Found from the working
 * directory, which must be inside the project.
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
   * The relay launcher: that of the distribution named by {@link #RELAY_DIST_ENV} when it is set,
   * else that of the built distribution (mvn package builds it).
   */
  public static Path relayLauncher() {
    String dist = System.getenv(RELAY_DIST_ENV);
    if (dist != null && !dist.isBlank()) {
      Path launcher = Path.of(dist).toAbsolutePath().resolve("bin/outbox-relay");
      if (!Files.isExecutable(launcher)) {
        throw new IllegalStateException(
            RELAY_DIST_ENV
                + "="
                + dist
                + ": no "
                + launcher
                + "; set it to an outbox-relay distribution directory (bin/, lib/)");
      }
      return launcher;
    }
    Path launcher = root().resolve("relay-app/target/dist/outbox-relay/bin/outbox-relay");
    if (!Files.isExecutable(launcher)) {
      throw new IllegalStateException(launcher + " is missing: run mvn package first");
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
