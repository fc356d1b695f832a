package io.outboxrelay.testsupport.stack;

import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A private MariaDB server: a {@code mariadbd} child process with its own datadir, listening on
 * 127.0.0.1 at its own port, with the binlog set up for CDC (ROW, FULL row image, GTID strict mode)
 * unless built otherwise.
 *
 * <p>All JDBC work goes over TCP as an admin account {@code 'admin'@'127.0.0.1'} with a random
 * password and all privileges. Accounts must be created at {@code 127.0.0.1}: the server runs with
 * {@code skip-name-resolve}, so {@code 'localhost'} accounts do not match TCP clients.
 *
 * <pre>{@code
 * try (MariaDbServer db = MariaDbServer.builder().start()) {
 *   String schema = db.createDatabase("orders");
 *   db.execute(schema, "CREATE TABLE t (id INT PRIMARY KEY)");
 * }
 * }</pre>
 *
 * <p>Thread-safe: lifecycle methods are synchronized; the JDBC helpers may be used concurrently.
 */
public final class MariaDbServer extends ChildService<MariaDbServer> {

  private static final Logger LOG = LoggerFactory.getLogger(MariaDbServer.class);
  private static final String ADMIN_USER = "admin";
  private static final String HOST = "127.0.0.1";
  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z0-9_]{1,40}");
  private static final SecureRandom RANDOM = new SecureRandom();

  private final MariaDbSettings settings;
  private final MariaDbLayout layout;
  private final String adminPassword = randomToken(24);

  private MariaDbServer(MariaDbSettings settings, boolean ownsBaseDir) {
    super(
        "[mariadb port=" + settings.port() + "]",
        settings.baseDir(),
        ownsBaseDir,
        settings.stopTimeout());
    this.settings = settings;
    this.layout = MariaDbLayout.forBaseDir(settings.baseDir());
  }

  /**
   * Starts building a server with the defaults: fresh temp dir, free port, {@code server_id=1},
   * binlog on in ROW format with the FULL row image, 256M buffer pool.
   *
   * @return a builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Initialises the datadir first if it is empty, starts {@code mariadbd} and makes sure of the
   * admin account. Starting a stopped or killed server reuses its datadir, port and admin account.
   *
   * @throws LocalStackException if a MariaDB program is missing, or initialisation or startup fails
   *     or times out (with the tail of the error log)
   */
  @Override
  protected ChildProcess launch() {
    MariaDbLauncher launcher =
        new MariaDbLauncher(settings, layout, MariaDbBinaries.locate(), logPrefix());
    long begin = System.nanoTime();
    long initMillis = launcher.prepare();
    long launch = System.nanoTime();
    ChildProcess process = launcher.launch();
    launcher.awaitReady(process, launch);
    long readyMillis = millisSince(launch);
    launcher.ensureSuperuser(account(ADMIN_USER), quote(adminPassword));
    LOG.info(
        "{} started in {} ms (init {} ms, ready {} ms), pid {}, binlog {}",
        logPrefix(),
        millisSince(begin),
        initMillis,
        readyMillis,
        process.pid(),
        settings.binlog() ? settings.binlogFormat() : "off");
    return process;
  }

  @Override
  protected void deleteOtherFiles() {
    if (layout.separateSocketDir()) {
      Dirs.deleteRecursively(layout.socketDir());
    }
  }

  /** Always {@code 127.0.0.1}. */
  public String host() {
    return HOST;
  }

  /** The TCP port; it stays the same across restarts. */
  public int port() {
    return settings.port();
  }

  /** The {@code server_id}. */
  public long serverId() {
    return settings.serverId();
  }

  /**
   * A JDBC URL for the MariaDB driver.
   *
   * @param database the default database, or {@code null} for none
   * @return {@code jdbc:mariadb://127.0.0.1:<port>/<database>}
   */
  public String jdbcUrl(String database) {
    return "jdbc:mariadb://"
        + HOST
        + ":"
        + settings.port()
        + "/"
        + (database == null ? "" : database);
  }

  /** The admin account's user name, {@code admin} (at host {@code 127.0.0.1}). */
  public String adminUser() {
    return ADMIN_USER;
  }

  /** The admin account's random password. */
  public String adminPassword() {
    return adminPassword;
  }

  /**
   * Opens a JDBC connection as admin without a default database. The caller closes it.
   *
   * @return a new connection
   * @throws SQLException if the server does not accept it
   */
  public Connection adminConnection() throws SQLException {
    return adminConnection(null);
  }

  /**
   * Opens a JDBC connection as admin. The caller closes it.
   *
   * @param database the default database, or {@code null}
   * @return a new connection
   * @throws SQLException if the server does not accept it
   */
  public Connection adminConnection(String database) throws SQLException {
    return DriverManager.getConnection(jdbcUrl(database), ADMIN_USER, adminPassword);
  }

  /**
   * Runs SQL statements as admin, each in autocommit mode, in order.
   *
   * @param database the default database, or {@code null}
   * @param sql the statements
   * @throws LocalStackException if a statement fails, naming it
   */
  public void execute(String database, String... sql) {
    try (Connection connection = adminConnection(database);
        Statement statement = connection.createStatement()) {
      for (String each : sql) {
        try {
          statement.execute(each);
        } catch (SQLException e) {
          throw new LocalStackException(logPrefix() + " statement failed: " + each + ": " + e, e);
        }
      }
    } catch (SQLException e) {
      throw new LocalStackException(logPrefix() + " cannot connect as admin: " + e, e);
    }
  }

  /**
   * Creates a database with a unique name (utf8mb4).
   *
   * @param prefix letters, digits and underscores, at most 40 characters
   * @return the name: {@code prefix} plus a random suffix, lower case
   */
  public String createDatabase(String prefix) {
    requireIdentifier(prefix, "prefix");
    String name = (prefix + "_" + randomToken(8)).toLowerCase(Locale.ROOT);
    execute(
        null, "CREATE DATABASE `" + name + "` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci");
    return name;
  }

  /**
   * Creates an account {@code 'user'@'127.0.0.1'} (replacing one of that name) and grants it
   * privileges. Each grant is the part of a {@code GRANT} statement between {@code GRANT} and
   * {@code TO}, for example {@code "SELECT, RELOAD, REPLICATION SLAVE, BINLOG MONITOR ON *.*"} or
   * {@code "ALL PRIVILEGES ON orders_x1.*"}. The grants are not escaped: test code only.
   *
   * @param user the user name: letters, digits and underscores
   * @param password the password
   * @param grants privileges with their target, see above
   * @throws LocalStackException if a statement fails
   */
  public void createUser(String user, String password, String... grants) {
    requireIdentifier(user, "user");
    String account = account(user);
    List<String> sql = new ArrayList<>();
    sql.add("CREATE OR REPLACE USER " + account + " IDENTIFIED BY " + quote(password));
    for (String grant : grants) {
      sql.add("GRANT " + grant + " TO " + account);
    }
    execute(null, sql.toArray(String[]::new));
  }

  /** The directory holding the datadir, {@code my.cnf} and logs. */
  public Path baseDir() {
    return settings.baseDir();
  }

  /** The datadir (also holds the binlog files {@code mariadb-bin.*}). */
  public Path dataDir() {
    return layout.dataDir();
  }

  /** The unix socket; root (or the OS user running the tests) can log in there without password. */
  public Path socketPath() {
    return layout.socket();
  }

  /** The server's error log. */
  public Path errorLog() {
    return layout.errorLog();
  }

  private static String account(String user) {
    return "'" + user + "'@'" + HOST + "'";
  }

  private static String quote(String literal) {
    return "'" + literal.replace("\\", "\\\\").replace("'", "''") + "'";
  }

  private static void requireIdentifier(String value, String what) {
    if (value == null || !IDENTIFIER.matcher(value).matches()) {
      throw new IllegalArgumentException(
          what + " must be 1-40 letters, digits or underscores: " + value);
    }
  }

  private static String randomToken(int length) {
    String alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
    StringBuilder token = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      token.append(alphabet.charAt(RANDOM.nextInt(alphabet.length())));
    }
    return token.toString();
  }

  /**
   * Configures a {@link MariaDbServer}.
   *
   * <p>Not thread-safe; use from one thread.
   */
  public static final class Builder extends ChildService.Builder<Builder, MariaDbServer> {

    private long serverId = 1;
    private boolean binlog = true;
    private String binlogFormat = "ROW";
    private String binlogRowImage = "FULL";
    private String bufferPoolSize = "256M";
    private final Map<String, String> extraOptions = new LinkedHashMap<>();

    private Builder() {}

    /**
     * Sets the base directory for datadir, config and logs (default: a fresh temp dir). When
     * running as root its parents must be searchable by the {@code mysql} user.
     *
     * @param baseDir the directory; created if missing, and then (only then) deleted on close
     * @return this builder
     */
    public Builder baseDir(Path baseDir) {
      return directory(baseDir, "baseDir");
    }

    /**
     * Sets {@code server_id} (default 1).
     *
     * @param serverId the id
     * @return this builder
     */
    public Builder serverId(long serverId) {
      this.serverId = serverId;
      return this;
    }

    /**
     * Turns the binlog on or off (default on); off renders {@code skip-log-bin}.
     *
     * @param binlog whether to write a binlog
     * @return this builder
     */
    public Builder binlog(boolean binlog) {
      this.binlog = binlog;
      return this;
    }

    /**
     * Sets {@code binlog_format}: ROW (default), STATEMENT or MIXED.
     *
     * @param binlogFormat the format
     * @return this builder
     */
    public Builder binlogFormat(String binlogFormat) {
      this.binlogFormat = Objects.requireNonNull(binlogFormat, "binlogFormat");
      return this;
    }

    /**
     * Sets {@code binlog_row_image}: FULL (default), MINIMAL or NOBLOB.
     *
     * @param binlogRowImage the row image
     * @return this builder
     */
    public Builder binlogRowImage(String binlogRowImage) {
      this.binlogRowImage = Objects.requireNonNull(binlogRowImage, "binlogRowImage");
      return this;
    }

    /**
     * Sets {@code innodb_buffer_pool_size} (default {@code 256M}).
     *
     * @param bufferPoolSize the size with a unit, e.g. {@code 512M}
     * @return this builder
     */
    public Builder bufferPoolSize(String bufferPoolSize) {
      this.bufferPoolSize = Objects.requireNonNull(bufferPoolSize, "bufferPoolSize");
      return this;
    }

    /**
     * Adds or replaces a {@code my.cnf} option in the {@code [mysqld]} group.
     *
     * @param name the option, e.g. {@code max_binlog_size} ({@code -} and {@code _} are alike)
     * @param value its value, or {@code null} for a flag such as {@code skip-grant-tables}
     * @return this builder
     */
    public Builder option(String name, String value) {
      extraOptions.put(Objects.requireNonNull(name, "name"), value);
      return this;
    }

    /**
     * Builds the server without starting it.
     *
     * @return a stopped server
     */
    @Override
    public MariaDbServer build() {
      boolean owns = ownsDirectory();
      Path dir = createDirectory("mariadb-");
      int chosenPort = portOrFree();
      MariaDbSettings settings =
          new MariaDbSettings(
              dir,
              chosenPort,
              serverId,
              binlog,
              binlogFormat,
              binlogRowImage,
              bufferPoolSize,
              Collections.unmodifiableMap(new LinkedHashMap<>(extraOptions)),
              startupTimeout(),
              stopTimeout());
      return new MariaDbServer(settings, owns);
    }
  }
}
