package io.outboxrelay.router;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class DialectTest {

  @ParameterizedTest
  @CsvSource({"MariaDB, MYSQL", "MySQL, MYSQL", "PostgreSQL, POSTGRESQL", "postgresql, POSTGRESQL"})
  void detectsTheDialectFromTheProductName(String product, Dialect expected) {
    assertThat(Dialect.fromProductName(product)).isEqualTo(expected);
  }

  @ParameterizedTest
  @ValueSource(strings = {"Oracle", "H2", "Microsoft SQL Server", ""})
  void refusesUnsupportedDatabasesNamingTheProduct(String product) {
    assertThatThrownBy(() -> Dialect.fromProductName(product))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'" + product + "'")
        .hasMessageContaining("supported are MariaDB, MySQL and PostgreSQL");
  }

  @Test
  void quotesEachPartForItsDialect() {
    assertThat(Dialect.MYSQL.quote("outbox_events")).isEqualTo("`outbox_events`");
    assertThat(Dialect.MYSQL.quote("app.outbox")).isEqualTo("`app`.`outbox`");
    assertThat(Dialect.POSTGRESQL.quote("Events")).isEqualTo("\"Events\"");
    assertThat(Dialect.POSTGRESQL.quote("app.outbox")).isEqualTo("\"app\".\"outbox\"");
  }

  @Test
  void namesTheFolderOfItsSchemaFiles() {
    assertThat(Dialect.MYSQL.schemaFolder()).isEqualTo("mysql");
    assertThat(Dialect.POSTGRESQL.schemaFolder()).isEqualTo("postgresql");
  }
}
