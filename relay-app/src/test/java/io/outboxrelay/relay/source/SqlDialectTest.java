package io.outboxrelay.relay.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.relay.config.SourceFlavor;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

class SqlDialectTest {

  @ParameterizedTest
  @CsvSource({
    // What the drivers report (MariaDB Connector/J names MariaDB and MySQL servers alike MySQL).
    "MariaDB,    10.11.6-MariaDB,                  MARIADB",
    "MySQL,      10.11.6-MariaDB-1:10.11.6+maria~ubu2204-log, MARIADB",
    "MySQL,      5.5.5-10.6.16-MariaDB,            MARIADB",
    "MySQL,      8.0.36,                           MYSQL",
    "PostgreSQL, 16.2 (Ubuntu 16.2-1.pgdg22.04+1), POSTGRESQL",
    // Neither family: judged as MySQL.
    "Oracle,     Oracle Database 19c,              MYSQL",
    "'',         '',                               MYSQL",
  })
  void ofProductTellsTheServerFromWhatItsDriverReports(
      String productName, String productVersion, SourceFlavor expected) {
    assertThat(SqlDialect.ofProduct(productName, productVersion).flavor()).isEqualTo(expected);
  }

  @ParameterizedTest
  @EnumSource(SourceFlavor.class)
  void eachFlavorHasTheDialectOfItsName(SourceFlavor flavor) {
    SqlDialect dialect = SqlDialect.of(flavor);
    assertThat(dialect.flavor()).isEqualTo(flavor);
    assertThat(dialect.snapshotsAtBinlogPosition()).isEqualTo(flavor == SourceFlavor.MARIADB);
  }
}
