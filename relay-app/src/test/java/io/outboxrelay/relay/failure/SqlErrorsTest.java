package io.outboxrelay.relay.failure;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.relay.failure.SqlErrors.ConnectFailure;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.sql.SQLException;
import java.sql.SQLInvalidAuthorizationSpecException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransactionRollbackException;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Table-driven in both directions: each failed connection attempt is read as stated, and every
 * reading is reached by some error, so a changed code or state fails here.
 */
class SqlErrorsTest {

  static Stream<Arguments> connectFailures() {
    return Stream.of(
        row(
            new SQLNonTransientConnectionException(
                "Socket fail to connect", "08000", new UnknownHostException("db.invalid")),
            ConnectFailure.UNKNOWN_HOST),
        row(
            new SQLInvalidAuthorizationSpecException("Access denied for user", "28000", 1045),
            ConnectFailure.LOGIN_REFUSED),
        row(
            new SQLException("password authentication failed", "28P01"),
            ConnectFailure.LOGIN_REFUSED),
        row(new SQLException("no pg_hba.conf entry", "28000"), ConnectFailure.LOGIN_REFUSED),
        row(
            new SQLException("Host '10.0.0.7' is not allowed to connect", "HY000", 1130),
            ConnectFailure.HOST_NOT_ALLOWED),
        row(
            new SQLException("Unknown database 'shop'", "42000", 1049),
            ConnectFailure.NO_SUCH_DATABASE),
        row(
            new SQLException("database \"shop\" does not exist", "3D000"),
            ConnectFailure.NO_SUCH_DATABASE),
        row(
            new SQLException("Access denied for user to database 'shop'", "42000", 1044),
            ConnectFailure.DATABASE_DENIED),
        row(
            new SQLNonTransientConnectionException(
                "Socket fail to connect", "08000", new ConnectException("Connection refused")),
            ConnectFailure.OTHER),
        row(new SQLException("Communications link failure", "08S01"), ConnectFailure.OTHER));
  }

  private static Arguments row(SQLException error, ConnectFailure expected) {
    return Arguments.of(error, expected);
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @MethodSource("connectFailures")
  void readsAFailedConnectionAttempt(SQLException error, ConnectFailure expected) {
    assertThat(SqlErrors.connectFailure(error)).isEqualTo(expected);
  }

  @Test
  void everyConnectFailureHasItsErrors() {
    Tables.assertEveryValueIsReached(connectFailures(), ConnectFailure.class);
  }

  @Test
  void tellsATransactionRollbackFromOtherFailures() {
    assertThat(SqlErrors.isTransactionRollback(new SQLException("Deadlock found", "40001", 1213)))
        .isTrue();
    assertThat(SqlErrors.isTransactionRollback(new SQLException("deadlock detected", "40P01")))
        .isTrue();
    assertThat(SqlErrors.isTransactionRollback(new SQLTransactionRollbackException("rolled back")))
        .isTrue();
    assertThat(SqlErrors.isTransactionRollback(new SQLException("link failure", "08S01")))
        .isFalse();
    assertThat(SqlErrors.isTransactionRollback(new SQLException("no state"))).isFalse();
    assertThat(SqlErrors.isDeadlock(new SQLException("Deadlock found", "40001", 1213))).isTrue();
    assertThat(SqlErrors.isDeadlock(new SQLException("Lock wait timeout", "HY000", 1205)))
        .isFalse();
  }

  @Test
  void tellsAMissingTableByStateOrByCode() {
    SQLException missing = new SQLException("Table 'shop.t' doesn't exist", "42S02", 1146);

    assertThat(SqlErrors.isNoSuchTable(missing)).isTrue();
    assertThat(SqlErrors.isNoSuchTableCode(missing)).isTrue();
    assertThat(SqlErrors.isNoSuchTable(new SQLException("relation does not exist", "42P01")))
        .isFalse();
    assertThat(SqlErrors.isNoSuchTableCode(new SQLException("denied", "42000", 1142))).isFalse();
  }

  @Test
  void tellsASetupProblemFromAFailureWorthTryingAgain() {
    for (SQLException setup :
        new SQLException[] {
          new SQLException("no such table", "42S02", 1146),
          new SQLException("Unknown column", "42S22", 1054),
          new SQLException("relation does not exist", "42P01"),
          new SQLException("column does not exist", "42703"),
          new SQLException("permission denied", "42501"),
          new SQLException("command denied", "42000", 1142),
          new SQLException("need a privilege", "42000", 1227)
        }) {
      assertThat(SqlErrors.isSetupProblem(setup)).as(setup.getMessage()).isTrue();
    }
    assertThat(SqlErrors.isSetupProblem(new SQLException("link failure", "08S01"))).isFalse();
    assertThat(SqlErrors.isSetupProblem(new SQLException("Deadlock", "40001", 1213))).isFalse();
    assertThat(SqlErrors.isTableOrDatabaseDenied(new SQLException("denied", "42000", 1142)))
        .isTrue();
    assertThat(SqlErrors.isTableOrDatabaseDenied(new SQLException("denied", "42000", 1044)))
        .isTrue();
    assertThat(SqlErrors.isTableOrDatabaseDenied(new SQLException("denied", "28000", 1045)))
        .isFalse();
    assertThat(SqlErrors.isCheckViolation(new SQLException("violates check", "23514"))).isTrue();
    assertThat(SqlErrors.isCheckViolation(new SQLException("duplicate", "23505"))).isFalse();
  }
}
