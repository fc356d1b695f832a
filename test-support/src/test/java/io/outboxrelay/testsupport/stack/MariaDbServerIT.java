package io.outboxrelay.testsupport.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class MariaDbServerIT {

  private static MariaDbServer server;

  @BeforeAll
  static void startServer() {
    server = MariaDbServer.builder().serverId(42).start();
  }

  @AfterAll
  static void closeServer() {
    server.close();
  }

  @Test
  void runsWithTheBinlogSettingsCdcNeeds() throws SQLException {
    try (Connection connection = server.adminConnection();
        Statement statement = connection.createStatement();
        ResultSet row =
            statement.executeQuery(
                "SELECT @@log_bin, @@binlog_format, @@binlog_row_image, @@gtid_strict_mode,"
                    + " @@sync_binlog, @@innodb_flush_log_at_trx_commit, @@server_id,"
                    + " @@character_set_server, @@port, @@skip_name_resolve")) {
      row.next();

      assertThat(row.getInt(1)).isEqualTo(1);
      assertThat(row.getString(2)).isEqualTo("ROW");
      assertThat(row.getString(3)).isEqualTo("FULL");
      assertThat(row.getInt(4)).isEqualTo(1);
      assertThat(row.getInt(5)).isEqualTo(1);
      assertThat(row.getInt(6)).isEqualTo(1);
      assertThat(row.getLong(7)).isEqualTo(42);
      assertThat(row.getString(8)).isEqualTo("utf8mb4");
      assertThat(row.getInt(9)).isEqualTo(server.port());
      assertThat(row.getInt(10)).isEqualTo(1);
    }
    assertThat(server.jdbcUrl("x")).isEqualTo("jdbc:mariadb://127.0.0.1:" + server.port() + "/x");
    assertThat(server.socketPath().toString().length()).isLessThanOrEqualTo(107);
  }

  @Test
  void aLeastPrivilegeUserConnectsOverTcpAndIsLimitedToItsGrants() throws SQLException {
    String database = server.createDatabase("grants");
    server.execute(database, "CREATE TABLE t (id INT PRIMARY KEY)", "INSERT INTO t VALUES (1)");
    server.createUser("reader", "it's secret", "SELECT ON " + database + ".*");

    try (Connection connection =
            DriverManager.getConnection(server.jdbcUrl(database), "reader", "it's secret");
        Statement statement = connection.createStatement()) {
      try (ResultSet rows = statement.executeQuery("SELECT COUNT(*) FROM t")) {
        rows.next();
        assertThat(rows.getInt(1)).isEqualTo(1);
      }
      assertThatThrownBy(() -> statement.execute("INSERT INTO t VALUES (2)"))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("denied");
    }
  }

  @Test
  void createDatabaseReturnsAFreshNameEachTime() {
    String first = server.createDatabase("Orders");
    String second = server.createDatabase("Orders");

    assertThat(first).startsWith("orders_").isNotEqualTo(second);
  }

  @Test
  void executeNamesTheStatementThatFailed() {
    assertThatThrownBy(() -> server.execute(null, "SELECT 1", "SELEC nonsense"))
        .isInstanceOf(LocalStackException.class)
        .hasMessageContaining("SELEC nonsense");
  }

  @Test
  void keepsDataAndPortAcrossStopKillAndRestart() throws SQLException {
    String database = server.createDatabase("restart");
    server.execute(database, "CREATE TABLE t (id INT PRIMARY KEY)", "INSERT INTO t VALUES (1)");
    int port = server.port();
    long firstPid = server.pid();

    server.stop();

    assertThat(server.isRunning()).isFalse();
    assertThat(server.dataDir().resolve(database)).isDirectory();
    assertThat(server.errorLog()).exists();
    assertThat(server.dataDir()).isDirectoryContaining("glob:**/mariadb-bin.000001");

    server.start();
    server.execute(database, "INSERT INTO t VALUES (2)");
    server.kill();
    server.start();

    assertThat(server.port()).isEqualTo(port);
    assertThat(server.pid()).isNotEqualTo(firstPid);
    assertThat(count(database)).isEqualTo(2);
  }

  @Test
  void aServerWithoutBinlogReportsLogBinOffAndItsDirectoriesGoOnClose() throws Exception {
    // A deep base directory: its socket must move to a short path (sun_path is ~107 bytes).
    Path parent = Dirs.createTempDir("mariadb-deep-");
    Files.setPosixFilePermissions(parent, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path deep = parent.resolve("x".repeat(60)).resolve("y".repeat(60));
    MariaDbServer plain =
        MariaDbServer.builder()
            .baseDir(deep)
            .binlog(false)
            .binlogFormat("STATEMENT")
            .binlogRowImage("MINIMAL")
            .bufferPoolSize("64M")
            .start();
    Path socket = plain.socketPath();
    try {
      try (Connection connection = plain.adminConnection();
          Statement statement = connection.createStatement();
          ResultSet row =
              statement.executeQuery(
                  "SELECT @@log_bin, @@binlog_format, @@binlog_row_image,"
                      + " @@innodb_buffer_pool_size")) {
        row.next();
        assertThat(row.getInt(1)).isZero();
        assertThat(row.getString(2)).isEqualTo("STATEMENT");
        assertThat(row.getString(3)).isEqualTo("MINIMAL");
        assertThat(row.getLong(4)).isEqualTo(64L * 1024 * 1024);
      }
      assertThat(socket.startsWith(deep)).isFalse();
      assertThat(socket).exists();
    } finally {
      plain.close();
    }

    assertThat(deep).doesNotExist();
    assertThat(socket.getParent()).doesNotExist();
    Dirs.deleteRecursively(parent);
  }

  @Test
  void closeDeletesTheDefaultTempDirectory() {
    MariaDbServer temporary = MariaDbServer.builder().start();
    Path base = temporary.baseDir();
    assertThat(base.resolve("data")).isDirectory();

    temporary.close();
    temporary.close();

    assertThat(base).doesNotExist();
    assertThat(temporary.isRunning()).isFalse();
  }

  @Test
  void explainsWhenTheMysqlUserCannotReachTheBaseDirectory() {
    assumeTrue(Dirs.runningAsRoot(), "only root hands the datadir to the mysql user");
    Path privateParent = Dirs.createTempDir("mariadb-private-"); // rwx------ root
    MariaDbServer unreachable =
        MariaDbServer.builder().baseDir(privateParent.resolve("server")).build();
    try {
      assertThatThrownBy(unreachable::start)
          .isInstanceOf(LocalStackException.class)
          .hasMessageContaining("'mysql' user cannot write")
          .hasMessageContaining("chmod o+x");
    } finally {
      unreachable.close();
      Dirs.deleteRecursively(privateParent);
    }
  }

  private static int count(String database) throws SQLException {
    try (Connection connection = server.adminConnection(database);
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT COUNT(*) FROM t")) {
      rows.next();
      return rows.getInt(1);
    }
  }
}
