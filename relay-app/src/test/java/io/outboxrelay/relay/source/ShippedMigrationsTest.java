package io.outboxrelay.relay.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.relay.config.SourceFlavor;
import io.outboxrelay.testsupport.stack.ProjectFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The migrations under {@code config/<database>/migrations}: one number means one change on every
 * database, so an operator can follow one list (docs/upgrading.md) whichever database they run.
 */
class ShippedMigrationsTest {

  /** {@code 003-allow-skipped-status.sql}, {@code processed-events-001-add-payload-hash.sql}. */
  private static final Pattern FILE = Pattern.compile("((?:[a-z-]+-)?)(\\d{3})-([a-z-]+)\\.sql");

  /** One series (the outbox table's has no prefix), number to file name. */
  private static Map<Integer, String> series(SqlDialect dialect, String prefix) throws IOException {
    Map<Integer, String> files = new TreeMap<>();
    try (Stream<Path> list =
        Files.list(ProjectFiles.root().resolve(dialect.configDirectory() + "/migrations"))) {
      for (Path p : (Iterable<Path>) list::iterator) {
        Matcher m = FILE.matcher(p.getFileName().toString());
        assertThat(m.matches()).as("a migration's file name: %s", p).isTrue();
        if (m.group(1).equals(prefix)) {
          files.put(Integer.parseInt(m.group(2)), p.getFileName().toString());
        }
      }
    }
    return files;
  }

  @Test
  void theOutboxTablesMigrationsCarryTheSameNumbersOnEveryDatabase() throws IOException {
    Map<Integer, String> mysql = series(SqlDialect.MYSQL, "");
    Map<Integer, String> postgres = series(SqlDialect.POSTGRESQL, "");
    assertThat(mysql.keySet())
        .containsExactlyElementsOf(IntStream.rangeClosed(1, mysql.size()).boxed().toList())
        .isEqualTo(postgres.keySet());
    // The same change: where both databases need a statement, the files are named alike; 002
    // does more on MariaDB/MySQL (fixed-width columns) than drop the index as on PostgreSQL.
    mysql.forEach(
        (n, name) -> {
          if (n != 2) {
            assertThat(name).isEqualTo(postgres.get(n));
          }
        });
  }

  @Test
  void theConsumersTableMigrationsCarryTheSameNumbersOnEveryDatabase() throws IOException {
    assertThat(series(SqlDialect.MYSQL, "processed-events-"))
        .isNotEmpty()
        .isEqualTo(series(SqlDialect.POSTGRESQL, "processed-events-"));
  }

  @Test
  void theRelaysOwnTablesHaveMigrationsOnMariaDbAndMySqlOnly() throws IOException {
    // The relay keeps tables of its own for CDC, which PostgreSQL does not offer.
    assertThat(series(SqlDialect.MYSQL, "relay-storage-")).isNotEmpty();
    assertThat(series(SqlDialect.POSTGRESQL, "relay-storage-")).isEmpty();
  }

  @Test
  void allowingSkippedRunsNothingOnMariaDbAndMySql() {
    // status is CHAR(10) without a check there: the file holds the step's number and says why.
    assertThat(
            ProjectFiles.sqlStatements(SqlDialect.MYSQL.migration("003-allow-skipped-status.sql")))
        .isEmpty();
    assertThat(
            ProjectFiles.sqlStatements(
                SqlDialect.POSTGRESQL.migration("003-allow-skipped-status.sql")))
        .isNotEmpty();
  }

  @ParameterizedTest
  @EnumSource(SourceFlavor.class)
  void theMigrationsTheRelayNamesInItsMessagesExist(SourceFlavor flavor) {
    // PollingPreflight (a table without last_error) and DeadCommands (SKIPPED refused).
    SqlDialect dialect = SqlDialect.of(flavor);
    for (String file : new String[] {"001-add-last-error.sql", "003-allow-skipped-status.sql"}) {
      assertThat(ProjectFiles.root().resolve(dialect.migration(file))).isRegularFile();
    }
  }
}
