package io.outboxrelay.testsupport.stack;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A private PostgreSQL server for logical decoding: the Debian {@code postgresql} package's {@code
 * postgres} as a child process, with its own data directory ({@code initdb} as the {@code postgres}
 * OS user when the tests run as root), its own unix socket directory and its own port on 127.0.0.1,
 * {@code wal_level=logical} and room for replication slots and WAL senders unless built otherwise.
 * The superuser {@code postgres} logs in without a password ({@code --auth=trust}).
 *
 * <pre>{@code
 * try (PostgresServer pg = PostgresServer.builder().start()) {
 *   PostgresDatabase db = pg.service().createDatabase("orders");
 * }
 * }</pre>
 *
 * <p>{@link #kill()} is a crash (SIGKILL of the postmaster; its backends exit once they see it
 * gone); the next {@link #start()} recovers from the WAL. Thread-safe: lifecycle methods are
 * synchronized.
 *
 * <p>A server may be a streaming standby of another ({@link Builder#standbyOf}): its data directory
 * starts as a copy of the primary's, and {@link #promote()} makes it a primary.
 */
public final class PostgresServer extends ChildService<PostgresServer> {

  private static final Logger LOG = LoggerFactory.getLogger(PostgresServer.class);
  private static final String HOST = "127.0.0.1";
  private static final String SUPERUSER = "postgres";
  static final String OS_USER = "postgres";

  private final int port;
  private final Map<String, String> settings;
  private final Duration startupTimeout;
  private final Path dataDir;
  private final Path socketDir;
  private final Path log;
  private final Path bin;
  private final Standby standby;
  private final boolean root = Dirs.runningAsRoot();

  /** What a standby follows: its primary and the physical slot it streams from there. */
  private record Standby(PostgresServer primary, String slot) {}

  private PostgresServer(
      Path baseDir,
      boolean ownsBaseDir,
      int port,
      Map<String, String> settings,
      Path bin,
      Standby standby,
      Duration startupTimeout,
      Duration stopTimeout) {
    super("[postgres port=" + port + "]", baseDir, ownsBaseDir, stopTimeout);
    this.port = port;
    this.settings = settings;
    this.startupTimeout = startupTimeout;
    this.dataDir = baseDir.resolve("data");
    this.socketDir = baseDir.resolve("socket");
    this.log = baseDir.resolve("postgres.log");
    this.bin = bin;
    this.standby = standby;
  }

  /**
   * Starts building a server: fresh temp dir, free port, {@code wal_level=logical}, {@code
   * max_replication_slots=10}, {@code max_wal_senders=10}.
   *
   * @return a builder
   */
  public static Builder builder() {
    return new Builder();
  }

  @Override
  protected ChildProcess launch() {
    long begin = System.nanoTime();
    long initMillis = 0;
    if (!Files.exists(dataDir.resolve("PG_VERSION"))) {
      if (standby != null) {
        copyPrimary();
      } else {
        initialise(bin);
      }
      initMillis = millisSince(begin);
    }
    long deadline = begin + startupTimeout.toNanos();
    while (true) {
      long launch = System.nanoTime();
      ChildProcess process =
          ChildProcess.builder(asOsUser(serverCommand(bin))).name("postgres").logFile(log).start();
      Optional<String> failure = awaitReady(process, deadline);
      if (failure.isEmpty()) {
        LOG.info(
            "{} started in {} ms (initdb {} ms, ready {} ms), pid {}, wal_level {}",
            logPrefix(),
            millisSince(begin),
            initMillis,
            millisSince(launch),
            process.pid(),
            settings.get("wal_level"));
        return process;
      }
      // After a kill, the old backends may still hold the shared memory for a moment: the new
      // postmaster then refuses to start ("pre-existing shared memory block ... is still in use").
      if (System.nanoTime() - deadline > 0 || !failure.get().contains("still in use")) {
        throw new LocalStackException(logPrefix() + " " + failure.get() + logTail());
      }
      ChildProcess.pauseBriefly();
    }
  }

  private void initialise(Path bin) {
    Dirs.createDirectories(dataDir);
    Dirs.createDirectories(socketDir);
    if (root) {
      Dirs.chownRecursively(getBaseDir(), OS_USER);
    }
    Commands.Result result =
        Commands.run(
            asOsUser(
                List.of(
                    bin.resolve("initdb").toString(),
                    "-D",
                    dataDir.toString(),
                    "-U",
                    SUPERUSER,
                    "--auth=trust",
                    "--encoding=UTF8",
                    "--locale=C",
                    "--no-sync")),
            startupTimeout);
    if (!result.succeeded()) {
      throw new LocalStackException(
          logPrefix()
              + " initdb exited with code "
              + result.exitCode()
              + ":\n"
              + result.output().strip());
    }
  }

  /**
   * A standby's data directory: the primary's, copied while the primary is stopped (a fast
   * shutdown: its clients are disconnected, and it writes a checkpoint; it is started again at
   * once), without its slots, with {@code standby.signal}. The primary keeps the standby's physical
   * slot, made first, so it keeps the WAL the standby has not received.
   */
  private void copyPrimary() {
    PostgresServer primary = standby.primary();
    primary.execute(
        "postgres",
        "SELECT pg_create_physical_replication_slot('"
            + standby.slot()
            + "', true) WHERE NOT EXISTS (SELECT 1 FROM pg_replication_slots WHERE slot_name = '"
            + standby.slot()
            + "')");
    Dirs.createDirectories(socketDir);
    Dirs.deleteRecursively(dataDir); // what an earlier attempt left
    primary.fastShutdown();
    try {
      Commands.runOrFail(
          List.of("cp", "-a", primary.dataDir().toString(), dataDir.toString()), startupTimeout);
    } finally {
      primary.start();
    }
    Dirs.deleteRecursively(dataDir.resolve("pg_replslot"));
    Dirs.createDirectories(dataDir.resolve("pg_replslot"));
    try {
      Files.deleteIfExists(dataDir.resolve("postmaster.pid"));
      Files.createFile(dataDir.resolve("standby.signal"));
    } catch (java.io.IOException e) {
      throw new LocalStackException(logPrefix() + " cannot prepare " + dataDir + ": " + e, e);
    }
    if (root) {
      Dirs.chownRecursively(getBaseDir(), OS_USER);
    }
  }

  /**
   * Stops the server as {@code pg_ctl stop -m fast} does (SIGINT: clients are disconnected, a
   * checkpoint is written), and waits for the postmaster to exit; {@link #start()} starts it again.
   * ({@link #stop()} is a smart shutdown, which waits for the clients to leave.) Does nothing if it
   * is not running.
   *
   * @throws LocalStackException when it has not exited within the startup timeout; it is then
   *     killed
   */
  public synchronized void fastShutdown() {
    if (!isRunning()) {
      return;
    }
    process().interrupt();
    try {
      process().waitFor(startupTimeout);
    } catch (LocalStackException stillRunning) {
      kill();
      throw stillRunning;
    }
  }

  private List<String> serverCommand(Path bin) {
    List<String> command = new ArrayList<>();
    command.add(bin.resolve("postgres").toString());
    command.add("-D");
    command.add(dataDir.toString());
    command.add("-p");
    command.add(String.valueOf(port));
    command.add("-c");
    command.add("listen_addresses=" + HOST);
    command.add("-c");
    command.add("unix_socket_directories=" + socketDir);
    settings.forEach(
        (name, value) -> {
          command.add("-c");
          command.add(name + "=" + value);
        });
    if (standby != null) {
      command.add("-c");
      command.add(
          "primary_conninfo=host="
              + HOST
              + " port="
              + standby.primary().port()
              + " user="
              + SUPERUSER
              + " dbname=postgres application_name="
              + standby.slot());
      command.add("-c");
      command.add("primary_slot_name=" + standby.slot());
    }
    return command;
  }

  /** As root, the command runs as the {@code postgres} user (exec'd: the child is the server). */
  private List<String> asOsUser(List<String> command) {
    if (!root) {
      return command;
    }
    List<String> wrapped = new ArrayList<>();
    wrapped.addAll(
        List.of("setpriv", "--reuid=" + OS_USER, "--regid=" + OS_USER, "--init-groups", "--"));
    wrapped.addAll(command);
    return wrapped;
  }

  private Optional<String> awaitReady(ChildProcess process, long deadline) {
    while (true) {
      if (!process.isAlive()) {
        return Optional.of(
            "postgres exited with code "
                + process.exitCode().orElse(-1)
                + " during startup: "
                + process.logTail(5).replace('\n', ' '));
      }
      try (Connection c = connect("postgres")) {
        return Optional.empty();
      } catch (SQLException notYet) {
        // starting, or recovering after a crash
      }
      if (System.nanoTime() - deadline > 0) {
        process.kill();
        process.waitFor(Duration.ofSeconds(30));
        return Optional.of("postgres was not ready within " + startupTimeout);
      }
      ChildProcess.pauseBriefly();
    }
  }

  private String logTail() {
    return LogFiles.labelledTail("log", log, 30);
  }

  /** The PostgreSQL binaries: {@code PG_BIN}, or the newest {@code /usr/lib/postgresql/N/bin}. */
  static Path binaries() {
    String env = System.getenv("PG_BIN");
    if (env != null && !env.isBlank()) {
      return Path.of(env);
    }
    Path lib = Path.of("/usr/lib/postgresql");
    if (Files.isDirectory(lib)) {
      try (Stream<Path> versions = Files.list(lib)) {
        Optional<Path> newest =
            versions
                .filter(p -> p.getFileName().toString().matches("\\d+"))
                .filter(p -> Files.isExecutable(p.resolve("bin/initdb")))
                .max(Comparator.comparingInt(p -> Integer.parseInt(p.getFileName().toString())));
        if (newest.isPresent()) {
          return newest.get().resolve("bin");
        }
      } catch (java.io.IOException e) {
        throw new LocalStackException("cannot list " + lib + ": " + e, e);
      }
    }
    throw new LocalStackException(
        "initdb not found under /usr/lib/postgresql/*/bin: run scripts/ensure-prereqs.sh"
            + " (installs postgresql with apt), or set PG_BIN");
  }

  /**
   * Makes a standby a primary ({@code pg_promote}, waiting for it) and stops it following its old
   * primary; at its next start it stays a primary.
   *
   * @throws LocalStackException when it is not a standby or the promotion does not finish in 60 s
   */
  public void promote() {
    if (standby == null) {
      throw new LocalStackException(logPrefix() + " is not a standby");
    }
    try (Connection c = connect("postgres");
        Statement st = c.createStatement();
        java.sql.ResultSet rs = st.executeQuery("SELECT pg_promote(true, 60)")) {
      if (!rs.next() || !rs.getBoolean(1)) {
        throw new LocalStackException(logPrefix() + " was not promoted within 60 s" + logTail());
      }
    } catch (SQLException e) {
      throw new LocalStackException(logPrefix() + " cannot promote: " + e, e);
    }
    LOG.info("{} promoted: it is a primary now", logPrefix());
  }

  private Path getBaseDir() {
    return dataDir.getParent();
  }

  /** Always {@code 127.0.0.1}. */
  public String host() {
    return HOST;
  }

  /** The TCP port; it stays the same across restarts. */
  public int port() {
    return port;
  }

  /** The superuser, {@code postgres}, which logs in without a password. */
  public String superuser() {
    return SUPERUSER;
  }

  /** The data directory. */
  public Path dataDir() {
    return dataDir;
  }

  /** The directory of the server's unix socket. */
  public Path socketDir() {
    return socketDir;
  }

  /** The server's log (stdout and stderr of every run). */
  public Path logFile() {
    return log;
  }

  /**
   * The server as a {@link PostgresService}, for throw-away databases.
   *
   * @return the service, as the superuser
   * @throws LocalStackException if the server does not listen
   */
  public PostgresService service() {
    return PostgresService.at(HOST, port, SUPERUSER, null);
  }

  /**
   * A JDBC URL for a database of this server.
   *
   * @param database the database
   * @return {@code jdbc:postgresql://127.0.0.1:<port>/<database>}
   */
  public String jdbcUrl(String database) {
    return "jdbc:postgresql://" + HOST + ":" + port + "/" + database;
  }

  /**
   * Opens a connection as the superuser. The caller closes it.
   *
   * @param database the database, e.g. {@code postgres}
   * @return a new connection
   * @throws SQLException if the server refuses it
   */
  public Connection connect(String database) throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", SUPERUSER);
    p.setProperty("connectTimeout", "5");
    return DriverManager.getConnection(jdbcUrl(database), p);
  }

  /**
   * Runs statements as the superuser, each in autocommit mode, in order.
   *
   * @param database the database
   * @param sql the statements
   * @throws LocalStackException if one fails, naming it
   */
  public void execute(String database, String... sql) {
    try (Connection c = connect(database);
        Statement st = c.createStatement()) {
      for (String each : sql) {
        try {
          st.execute(each);
        } catch (SQLException e) {
          throw new LocalStackException(logPrefix() + " statement failed: " + each + ": " + e, e);
        }
      }
    } catch (SQLException e) {
      throw new LocalStackException(logPrefix() + " cannot connect: " + e, e);
    }
  }

  /**
   * Configures a {@link PostgresServer}.
   *
   * <p>Not thread-safe; use from one thread.
   */
  public static final class Builder extends ChildService.Builder<Builder, PostgresServer> {

    private final Map<String, String> settings = new LinkedHashMap<>();
    private Path bin;
    private Standby standby;

    private Builder() {
      settings.put("wal_level", "logical");
      settings.put("max_replication_slots", "10");
      settings.put("max_wal_senders", "10");
      settings.put("fsync", "off"); // a test server: a kill -9 of postgres itself stays safe
      settings.put("shared_buffers", "64MB");
      settings.put("max_connections", "100");
    }

    /**
     * Sets the base directory for the data directory, socket and log (default: a fresh temp dir).
     * When running as root its parents must be searchable by the {@code postgres} user.
     *
     * @param baseDir the directory; created if missing, and then (only then) deleted on close
     * @return this builder
     */
    public Builder baseDir(Path baseDir) {
      return directory(baseDir, "baseDir");
    }

    /**
     * Adds or replaces a server setting, passed as {@code -c name=value} at every start, e.g.
     * {@code wal_level=replica} or {@code max_slot_wal_keep_size=1MB}.
     *
     * @param name the setting
     * @param value its value
     * @return this builder
     */
    public Builder setting(String name, String value) {
      settings.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
      return this;
    }

    /**
     * Runs these binaries instead of the machine's package (default: {@code PG_BIN}, or the newest
     * {@code /usr/lib/postgresql/N/bin}), e.g. {@link PostgresBinaries#bundled()}.
     *
     * @param bin the directory holding {@code initdb} and {@code postgres}
     * @return this builder
     */
    public Builder binaries(Path bin) {
      this.bin = Objects.requireNonNull(bin, "bin");
      return this;
    }

    /**
     * Makes the server a streaming standby of a running primary of the same binaries: at its first
     * start its data directory is a copy of the primary's (the primary is stopped cleanly for the
     * copy and started again), and it streams the WAL from the primary through the physical slot
     * {@code slot}, made on the primary if missing. Add the version's settings as needed, e.g.
     * {@code hot_standby_feedback=on} and, on 17, {@code sync_replication_slots=on}.
     *
     * @param primary the primary, running
     * @param slot the physical slot's name, also the standby's {@code application_name} (for {@code
     *     synchronous_standby_names} and {@code synchronized_standby_slots})
     * @return this builder
     */
    public Builder standbyOf(PostgresServer primary, String slot) {
      this.standby =
          new Standby(Objects.requireNonNull(primary, "primary"), Objects.requireNonNull(slot));
      this.bin = primary.bin;
      return this;
    }

    @Override
    public PostgresServer build() {
      boolean owns = ownsDirectory();
      Path dir = createDirectory("postgres-");
      // The postgres user must reach the directory: a temp dir is only its owner's.
      dir.toFile().setExecutable(true, false);
      dir.toFile().setReadable(true, false);
      File parent = dir.toFile().getParentFile();
      if (parent != null && !parent.canExecute()) {
        throw new LocalStackException(parent + " is not searchable by the postgres user");
      }
      return new PostgresServer(
          dir,
          owns,
          portOrFree(),
          Map.copyOf(settings),
          bin != null ? bin : PostgresServer.binaries(),
          standby,
          startupTimeout(),
          stopTimeout());
    }
  }
}
