package io.outboxrelay.relay.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.relay.config.Secret;
import io.outboxrelay.relay.config.SourceConfig;
import io.outboxrelay.relay.config.SourceFlavor;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.sql.SQLException;
import java.sql.SQLInvalidAuthorizationSpecException;
import java.sql.SQLNonTransientConnectionException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class SourceConnectionsTest {

  private static SourceConfig source(SourceFlavor flavor, String host) {
    return io.outboxrelay.relay.config.Sources.of(
        flavor,
        host,
        flavor.defaultPort(),
        "shop",
        "outbox_relay",
        new Secret("s3cret-pw"),
        "outbox_events",
        Duration.ofSeconds(10));
  }

  @Test
  void aRefusedUserIsAConfigurationProblemNamingTheKeys() {
    SQLException e =
        new SQLInvalidAuthorizationSpecException(
            "(conn=20) Access denied for user 'outbox_relay'@'10.0.0.7' (using password: YES)",
            "28000",
            1045);

    assertThat(SourceConnections.configurationProblem(source(SourceFlavor.MARIADB, "db1"), e))
        .isEqualTo(
            "mariadb db1:3306/shop refused user 'outbox_relay' (wrong password, or no such user"
                + " for this host): check source.user and source.password (Access denied for user"
                + " 'outbox_relay'@'10.0.0.7' (using password: YES))")
        .doesNotContain("s3cret-pw");
  }

  @Test
  void aPostgresqlPasswordFailureIsAConfigurationProblem() {
    SQLException e =
        new SQLException(
            "FATAL: password authentication failed for user \"outbox_relay\"", "28P01");

    assertThat(SourceConnections.configurationProblem(source(SourceFlavor.POSTGRESQL, "pg"), e))
        .startsWith("postgresql pg:5432/shop refused user 'outbox_relay'");
  }

  @Test
  void aHostThatDoesNotResolveIsAConfigurationProblem() {
    SQLException e =
        new SQLNonTransientConnectionException(
            "Socket fail to connect to db.invalid:3306. db.invalid",
            "08000",
            new UnknownHostException("db.invalid"));

    assertThat(
            SourceConnections.configurationProblem(source(SourceFlavor.MARIADB, "db.invalid"), e))
        .isEqualTo(
            "source.host 'db.invalid' does not resolve to an address: check source.host (and the"
                + " DNS of this host)");
  }

  @Test
  void anUnknownDatabaseIsAConfigurationProblem() {
    assertThat(
            SourceConnections.configurationProblem(
                source(SourceFlavor.MARIADB, "db1"),
                new SQLException("Unknown database 'shop'", "42000", 1049)))
        .startsWith("database 'shop' does not exist on db1:3306: check source.database");
    assertThat(
            SourceConnections.configurationProblem(
                source(SourceFlavor.POSTGRESQL, "pg"),
                new SQLException("FATAL: database \"shop\" does not exist", "3D000")))
        .startsWith("database 'shop' does not exist on pg:5432: check source.database");
  }

  @Test
  void aDatabaseThatIsDownIsNotAConfigurationProblem() {
    SQLException e =
        new SQLNonTransientConnectionException(
            "Socket fail to connect to db1:3306. Connection refused",
            "08000",
            new ConnectException("Connection refused"));

    assertThat(SourceConnections.configurationProblem(source(SourceFlavor.MARIADB, "db1"), e))
        .isNull();
  }
}
