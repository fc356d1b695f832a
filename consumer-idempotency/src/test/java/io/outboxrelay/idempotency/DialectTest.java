package io.outboxrelay.idempotency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
  void refusesUnsupportedDatabases(String product) {
    assertThatThrownBy(() -> Dialect.fromProductName(product))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("supports MariaDB, MySQL and PostgreSQL");
  }
}
