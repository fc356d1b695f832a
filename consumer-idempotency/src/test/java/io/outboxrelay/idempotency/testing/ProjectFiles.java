package io.outboxrelay.idempotency.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Files of the project that tests use as they are: the DDL under config/. */
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
   * The statements of an SQL file under config/, comments removed.
   *
   * @param relative e.g. {@code config/mysql/processed-events.sql}
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
