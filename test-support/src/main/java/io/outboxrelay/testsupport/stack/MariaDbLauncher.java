package io.outboxrelay.testsupport.stack;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The mechanics of one start of a private {@code mariadbd}: config file, directory ownership, an
 * initialised datadir copied into an empty one ({@link MariaDbTemplates}, which runs {@code
 * mariadb-install-db} once per JVM), the child process, the readiness ping over the private socket
 * and the admin account.
 *
 * <p>As root, the server switches to the {@code mysql} user, which must own (and be able to reach)
 * its directories. The socket login uses the OS user's socket-authenticated account: {@code root}
 * (created by the installer), or the current user, named by {@code --auth-root-socket-user}.
 *
 * <p>Not thread-safe: used by {@link MariaDbServer} under its lock.
 */
final class MariaDbLauncher {

  static final String MYSQL_OS_USER = "mysql";

  private final MariaDbSettings settings;
  private final MariaDbLayout layout;
  private final MariaDbBinaries binaries;
  private final String logPrefix;
  private final boolean root = Dirs.runningAsRoot();
  private final String osUser = System.getProperty("user.name");

  MariaDbLauncher(
      MariaDbSettings settings, MariaDbLayout layout, MariaDbBinaries binaries, String logPrefix) {
    this.settings = settings;
    this.layout = layout;
    this.binaries = binaries;
    this.logPrefix = logPrefix;
  }

  /**
   * Writes {@code my.cnf}, hands the directories to {@code mysql} when root, and fills the datadir
   * with a copy of an initialised one ({@link MariaDbTemplates}) if it is empty.
   *
   * @return how long initialisation took, 0 if the datadir was already initialised
   */
  long prepare() {
    writeConfig();
    if (Files.isDirectory(layout.dataDir().resolve("mysql"))) {
      return 0;
    }
    long begin = System.nanoTime();
    MariaDbTemplates.copyInto(settings, binaries, layout.dataDir());
    handOverToMysqlUser();
    return (System.nanoTime() - begin) / 1_000_000;
  }

  /**
   * Writes {@code my.cnf} and initialises the empty datadir with {@code mariadb-install-db}: what
   * {@link MariaDbTemplates} does once per JVM.
   *
   * @throws LocalStackException if the installer fails
   */
  void initialise() {
    writeConfig();
    runInstaller();
    handOverToMysqlUser();
  }

  private void writeConfig() {
    Dirs.createDirectories(layout.dataDir());
    Dirs.createDirectories(layout.socketDir());
    writeFile(layout.configFile(), new MariaDbConfig(settings, layout, root).render());
    handOverToMysqlUser();
  }

  /** Starts {@code mariadbd} with the generated config. */
  ChildProcess launch() {
    return ChildProcess.builder(
            List.of(binaries.server().toString(), "--defaults-file=" + layout.configFile()))
        .name("mariadbd")
        .logFile(layout.outputLog())
        .start();
  }

  /**
   * Waits until the server answers over its socket.
   *
   * @param process the server
   * @param launchNanos when it was launched ({@link System#nanoTime()})
   * @throws LocalStackException if it exits or is not ready within the startup timeout (it is
   *     killed then), with the tail of the error log
   */
  void awaitReady(ChildProcess process, long launchNanos) {
    long deadline = launchNanos + settings.startupTimeout().toNanos();
    while (true) {
      if (!process.isAlive()) {
        throw new LocalStackException(
            logPrefix
                + " mariadbd exited with code "
                + process.exitCode().orElse(-1)
                + " during startup"
                + failureLogs());
      }
      if (Files.exists(layout.socket()) && socketClient("SELECT 1").succeeded()) {
        return;
      }
      if (System.nanoTime() - deadline > 0) {
        process.kill();
        throw new LocalStackException(
            logPrefix
                + " mariadbd was not ready within "
                + settings.startupTimeout()
                + failureLogs());
      }
      ChildProcess.pauseBriefly();
    }
  }

  /**
   * Creates or updates an account with all privileges and the grant option, without writing it to
   * the binlog.
   *
   * @param account the quoted account, e.g. {@code 'admin'@'127.0.0.1'}
   * @param quotedPassword the password as a quoted SQL literal
   */
  void ensureSuperuser(String account, String quotedPassword) {
    String sql =
        "SET SESSION sql_log_bin=0;"
            + ("CREATE USER IF NOT EXISTS " + account + " IDENTIFIED BY " + quotedPassword + ";")
            + ("ALTER USER " + account + " IDENTIFIED BY " + quotedPassword + ";")
            + ("GRANT ALL PRIVILEGES ON *.* TO " + account + " WITH GRANT OPTION;");
    Commands.Result result = socketClient(sql);
    if (!result.succeeded()) {
      throw new LocalStackException(
          logPrefix + " cannot create the account " + account + ": " + result.output().strip());
    }
  }

  private void runInstaller() {
    List<String> command = new ArrayList<>();
    command.add(binaries.installDb().toString());
    command.add("--defaults-file=" + layout.configFile());
    command.add(root ? "--user=" + MYSQL_OS_USER : "--auth-root-socket-user=" + osUser);
    command.add("--skip-test-db");
    Commands.Result result = Commands.run(command, settings.startupTimeout());
    writeFile(layout.installLog(), result.output());
    if (!result.succeeded()) {
      throw new LocalStackException(
          logPrefix
              + " mariadb-install-db exited with code "
              + result.exitCode()
              + ":\n"
              + result.output().strip()
              + LogFiles.labelledTail("error log", layout.errorLog(), 30));
    }
  }

  private void handOverToMysqlUser() {
    if (!root) {
      return;
    }
    // mariadbd refuses to run as root; it switches to 'mysql', which must own its files.
    Dirs.chownRecursively(layout.baseDir(), MYSQL_OS_USER);
    if (layout.separateSocketDir()) {
      Dirs.chownRecursively(layout.socketDir(), MYSQL_OS_USER);
    }
    checkWritableByMysqlUser(layout.dataDir());
    checkWritableByMysqlUser(layout.socketDir());
  }

  /** Owning a directory is not enough: every parent must be searchable by 'mysql' too. */
  private void checkWritableByMysqlUser(Path dir) {
    Commands.Result result =
        Commands.run(
            List.of("runuser", "-u", MYSQL_OS_USER, "--", "test", "-w", dir.toString()),
            Duration.ofSeconds(10));
    if (!result.succeeded()) {
      throw new LocalStackException(
          logPrefix
              + " the '"
              + MYSQL_OS_USER
              + "' user cannot write "
              + dir
              + ": make its parent directories searchable (chmod o+x) or use the default base"
              + " directory");
    }
  }

  /** Runs SQL over the private socket as the OS user's socket-authenticated account. */
  private Commands.Result socketClient(String sql) {
    return Commands.run(
        List.of(
            binaries.client().toString(),
            "--no-defaults",
            "--protocol=socket",
            "--socket=" + layout.socket(),
            "--user=" + osUser,
            "--connect-timeout=5",
            "--batch",
            "--skip-column-names",
            "--execute=" + sql),
        Duration.ofSeconds(30));
  }

  private String failureLogs() {
    return LogFiles.labelledTail("error log", layout.errorLog(), 30)
        + LogFiles.labelledTail("output", layout.outputLog(), 10);
  }

  private void writeFile(Path file, String text) {
    try {
      Files.writeString(file, text);
    } catch (IOException e) {
      throw new LocalStackException(logPrefix + " cannot write " + file + ": " + e, e);
    }
  }
}
