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
   * The relay launcher of the built distribution (mvn package builds it), or of the distribution
   * directory named by the environment variable {@code OUTBOX_RELAY_DIST} (the {@code outbox-relay}
   * directory of another build: the benchmark runs an older relay against a newer one that way).
   */
  public static Path relayLauncher() {
    String other = System.getenv("OUTBOX_RELAY_DIST");
    Path dist =
        other == null || other.isBlank()
            ? root().resolve("relay-app/target/dist/outbox-relay")
            : Path.of(other).toAbsolutePath();
    Path launcher = dist.resolve("bin/outbox-relay");
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
