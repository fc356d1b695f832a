package io.outboxrelay.relay.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The relay's JDBC URLs. On MariaDB and MySQL a catalog lookup without a database must search the
 * relay's own database only (several services' databases share one server, and Debezium's stores
 * find their tables that way): both drivers must know the option that says so.
 */
class SourceConfigTest {

  private static SourceConfig source(SourceFlavor flavor) {
    return Sources.of(
        flavor,
        "db.internal",
        flavor.defaultPort(),
        "shop",
        "relay",
        new Secret("pw"),
        "outbox_events",
        Duration.ofSeconds(10));
  }

  @ParameterizedTest
  @EnumSource(
      value = SourceFlavor.class,
      names = {"MARIADB", "MYSQL"})
  void mySqlFamilyUrlsResolveCatalogLookupsInTheRelaysOwnDatabase(SourceFlavor flavor) {
    assertThat(source(flavor).jdbcUrl())
        .startsWith(flavor.jdbcPrefix() + "db.internal:3306/shop?")
        .contains("nullDatabaseMeansCurrent=true");
  }

  @ParameterizedTest
  @EnumSource(
      value = SourceFlavor.class,
      names = {"MARIADB", "MYSQL"})
  void theDriverOfEachFlavorKnowsTheCatalogOption(SourceFlavor flavor) throws Exception {
    if (flavor == SourceFlavor.MARIADB) {
      // Configuration.parse refuses nothing, so read the option back from the parsed URL.
      org.mariadb.jdbc.Configuration conf =
          org.mariadb.jdbc.Configuration.parse(source(flavor).jdbcUrl());
      assertThat(conf.nullDatabaseMeansCurrent()).isTrue();
    } else {
      assertThat(com.mysql.cj.conf.PropertyKey.fromValue("nullDatabaseMeansCurrent"))
          .as("Connector/J's property for catalog lookups in the current database")
          .isNotNull();
    }
  }

  @org.junit.jupiter.api.Test
  void postgresqlUrlsCarryNoMySqlOption() {
    assertThat(source(SourceFlavor.POSTGRESQL).jdbcUrl())
        .isEqualTo("jdbc:postgresql://db.internal:5432/shop?connectTimeout=10");
  }
}
