package io.outboxrelay.testsupport.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

class PostgresServiceIT {

  @Test
  void createsAUsableDatabaseAndDropsItOnCloseEvenWithAConnectionOpen() throws SQLException {
    PostgresService service = PostgresService.local();
    PostgresDatabase database = service.createDatabase("local_stack_it");
    Connection lingering = database.connection();
    try (Statement statement = lingering.createStatement()) {
      statement.execute("CREATE TABLE processed (event_id TEXT PRIMARY KEY)");
      statement.execute("INSERT INTO processed VALUES ('e1')");
    }
    assertThat(database.jdbcUrl()).isEqualTo("jdbc:postgresql://127.0.0.1:5432/" + database.name());
    assertThat(database.user()).isEqualTo("postgres");
    assertThat(exists(database.name())).isTrue();

    database.close();
    database.close();

    assertThat(exists(database.name())).isFalse();
    assertThat(lingering.isValid(2)).isFalse();
    lingering.close();
  }

  @Test
  void reportsAServiceThatIsNotRunningWithTheFix() {
    int closedPort = FreePorts.findFreePort();

    assertThatThrownBy(() -> PostgresService.at("127.0.0.1", closedPort, "postgres", null))
        .isInstanceOf(LocalStackException.class)
        .hasMessage(
            "PostgreSQL is not running on 127.0.0.1:"
                + closedPort
                + ": run scripts/ensure-prereqs.sh");
  }

  private static boolean exists(String name) throws SQLException {
    try (Connection connection =
            DriverManager.getConnection(
                "jdbc:postgresql://127.0.0.1:5432/postgres", "postgres", "");
        PreparedStatement query =
            connection.prepareStatement("SELECT 1 FROM pg_database WHERE datname = ?")) {
      query.setString(1, name);
      try (ResultSet rows = query.executeQuery()) {
        return rows.next();
      }
    }
  }
}
