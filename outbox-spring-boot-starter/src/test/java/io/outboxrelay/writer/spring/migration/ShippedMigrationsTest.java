package io.outboxrelay.writer.spring.migration;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.router.Dialect;
import io.outboxrelay.testsupport.stack.ProjectFiles;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The shipped scripts say what the project's {@code config/} files say, so that they cannot drift
 * apart unnoticed (the integration tests compare the resulting tables in the databases): the first
 * version is the DDL file with IF NOT EXISTS, each later one the statement of the matching file of
 * {@code config/<dialect>/migrations}, run only where its column is missing.
 */
class ShippedMigrationsTest {

  private static String script(MigrationSet set, Dialect dialect, String file) throws IOException {
    String path = set.location(dialect).substring("classpath:".length()) + "/" + file;
    try (InputStream in = ShippedMigrationsTest.class.getClassLoader().getResourceAsStream(path)) {
      assertThat(in).as(path).isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** The statements of a script: comments removed, split at semicolons, trimmed. */
  private static List<String> statements(String text) {
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

  private static String config(Dialect dialect, String file) {
    return "config/" + dialect.name().toLowerCase(Locale.ROOT) + "/" + file;
  }

  private static List<String> ifNotExists(List<String> statements) {
    return statements.stream()
        .map(
            s ->
                s.replace("CREATE TABLE ", "CREATE TABLE IF NOT EXISTS ")
                    .replace("CREATE INDEX ", "CREATE INDEX IF NOT EXISTS "))
        .toList();
  }

  /** The statement of a config migration as the shipped script runs it. */
  private static void assertAddsWhereMissing(Dialect dialect, String shipped, String configFile) {
    // The comment names the file, for whoever reads the script.
    assertThat(shipped).contains(config(dialect, configFile));
    List<String> expected = ProjectFiles.sqlStatements(config(dialect, configFile));
    assertThat(expected).hasSize(1);
    String alter = expected.get(0);
    if (dialect == Dialect.POSTGRESQL) {
      assertThat(statements(shipped))
          .containsExactly(alter.replace(" ADD COLUMN ", " ADD COLUMN IF NOT EXISTS "));
    } else {
      // MySQL has no ADD COLUMN IF NOT EXISTS: the statement is prepared where the column is
      // missing.
      assertThat(shipped).contains("'" + alter + "'").contains("EXECUTE outbox_ddl;");
    }
  }

  @ParameterizedTest
  @EnumSource(Dialect.class)
  void outboxTableIsTheConfigDdlAndItsMigrations(Dialect dialect) throws IOException {
    List<String> later = laterScripts(MigrationSet.OUTBOX, dialect);
    assertThat(later).startsWith("V2__add_aggregate_version.sql", "V3__add_headers.sql");
    List<String> added = new ArrayList<>();
    for (String file : later) {
      String shipped = script(MigrationSet.OUTBOX, dialect, file);
      String configFile = namedConfigMigration(dialect, shipped);
      assertAddsWhereMissing(dialect, shipped, configFile);
      added.add(addedColumn(ProjectFiles.sqlStatements(config(dialect, configFile)).get(0)));
    }
    // V1 is the DDL file as it was when the starter shipped: a column a later version adds may be
    // in both or in the DDL file only (a Flyway script never changes once shipped).
    assertThat(
            withoutColumns(
                statements(script(MigrationSet.OUTBOX, dialect, "V1__create_outbox_events.sql")),
                added))
        .isEqualTo(
            withoutColumns(
                ifNotExists(ProjectFiles.sqlStatements(config(dialect, "outbox-schema.sql"))),
                added));
  }

  /** The scripts after V1, in version order. */
  private static List<String> laterScripts(MigrationSet set, Dialect dialect) throws IOException {
    String path = set.location(dialect).substring("classpath:".length());
    // From the sources, not the classpath: on Spring Boot 3.5 the starter's tests run against its
    // jar, whose folders Files.list cannot open.
    Path folder =
        ProjectFiles.root().resolve("outbox-spring-boot-starter/src/main/resources").resolve(path);
    assertThat(folder).as(path).isDirectory();
    try (Stream<Path> files = Files.list(folder)) {
      return files
          .map(f -> f.getFileName().toString())
          .filter(f -> f.matches("V\\d+__.*\\.sql") && !f.startsWith("V1__"))
          .sorted(Comparator.comparingInt(f -> Integer.parseInt(f.substring(1, f.indexOf("__")))))
          .toList();
    }
  }

  /** The config migration a shipped script's comment names, relative to config/<dialect>. */
  private static String namedConfigMigration(Dialect dialect, String shipped) {
    Matcher m =
        Pattern.compile(Pattern.quote(config(dialect, "migrations/")) + "([\\w.-]+\\.sql)")
            .matcher(shipped);
    assertThat(m.find()).as("names its config/%s migration", dialect).isTrue();
    return "migrations/" + m.group(1);
  }

  private static String addedColumn(String alter) {
    Matcher m = Pattern.compile("ADD COLUMN (\\w+)").matcher(alter);
    assertThat(m.find()).as(alter).isTrue();
    return m.group(1);
  }

  private static List<String> withoutColumns(List<String> statements, List<String> columns) {
    return statements.stream()
        .map(
            s -> {
              String out = s;
              for (String column : columns) {
                out = out.replaceAll("\\n\\s*" + column + "\\s[^\\n]*", "");
              }
              return out;
            })
        .toList();
  }

  @ParameterizedTest
  @EnumSource(Dialect.class)
  void processedEventsTablesAreTheConfigDdlAndItsMigrations(Dialect dialect) throws IOException {
    assertThat(
            statements(
                script(MigrationSet.PROCESSED_EVENTS, dialect, "V1__create_processed_events.sql")))
        .isEqualTo(
            ifNotExists(ProjectFiles.sqlStatements(config(dialect, "processed-events.sql"))));
    assertAddsWhereMissing(
        dialect,
        script(MigrationSet.PROCESSED_EVENTS, dialect, "V2__add_payload_hash.sql"),
        "migrations/processed-events-001-add-payload-hash.sql");
  }
}
