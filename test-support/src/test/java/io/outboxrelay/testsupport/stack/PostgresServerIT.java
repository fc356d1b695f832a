package io.outboxrelay.testsupport.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

class PostgresServerIT {

  @Test
  void startsWithLogicalDecodingOnItsOwnPortAndKeepsASlotThroughAKill() throws Exception {
    Path dir;
    try (PostgresServer pg = PostgresServer.builder().start()) {
      dir = pg.dataDir().getParent();
      assertThat(pg.port()).isNotEqualTo(5432);
      assertThat(query(pg, "SHOW wal_level")).isEqualTo("logical");
      assertThat(query(pg, "SHOW max_replication_slots")).isEqualTo("10");
      assertThat(query(pg, "SHOW unix_socket_directories")).isEqualTo(pg.socketDir().toString());
      assertThat(Files.list(pg.socketDir())).isNotEmpty();
      pg.execute(
          "postgres",
          "SELECT pg_create_logical_replication_slot('kept', 'pgoutput')",
          "CREATE TABLE t (id int PRIMARY KEY)",
          "INSERT INTO t VALUES (1)");
      long before = pg.pid();

      pg.kill();
      assertThat(pg.isRunning()).isFalse();
      pg.start();

      assertThat(pg.pid()).isNotEqualTo(before);
      assertThat(query(pg, "SELECT slot_name FROM pg_replication_slots")).isEqualTo("kept");
      assertThat(query(pg, "SELECT count(*)::text FROM t")).isEqualTo("1");

      pg.stop();
      assertThat(pg.isRunning()).isFalse();
      pg.start();
      assertThat(query(pg, "SELECT plugin FROM pg_replication_slots")).isEqualTo("pgoutput");
    }
    assertThat(dir).doesNotExist();
  }

  @Test
  void takesOtherSettingsWhenBuiltWithThem() throws Exception {
    try (PostgresServer pg =
        PostgresServer.builder()
            .setting("wal_level", "replica")
            .setting("max_replication_slots", "0")
            .start()) {
      assertThat(query(pg, "SHOW wal_level")).isEqualTo("replica");
      assertThat(query(pg, "SHOW max_replication_slots")).isEqualTo("0");
      try (PostgresDatabase db = pg.service().createDatabase("pgserver")) {
        assertThat(db.name()).startsWith("pgserver_");
      }
    }
  }

  private static String query(PostgresServer pg, String sql) throws Exception {
    try (Connection c = pg.connect("postgres");
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }
}
