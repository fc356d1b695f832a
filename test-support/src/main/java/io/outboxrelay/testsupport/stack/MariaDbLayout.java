package io.outboxrelay.testsupport.stack;

import java.nio.file.Path;

/**
 * Where a private MariaDB server keeps its files. Immutable and thread-safe.
 *
 * @param baseDir holds the datadir, {@code my.cnf} and the logs
 * @param socketDir holds the unix socket: the base dir, or a short temp dir when the base dir's
 *     path is too long for a socket ({@code sun_path} holds about 107 bytes)
 */
record MariaDbLayout(Path baseDir, Path socketDir) {

  private static final int MAX_SOCKET_PATH = 100;
  private static final String SOCKET = "mariadb.sock";

  /**
   * Chooses the layout for a base directory, creating a short socket directory if needed.
   *
   * @param baseDir the base directory
   * @return the layout
   */
  static MariaDbLayout forBaseDir(Path baseDir) {
    boolean fits = baseDir.toAbsolutePath().resolve(SOCKET).toString().length() <= MAX_SOCKET_PATH;
    return new MariaDbLayout(baseDir, fits ? baseDir : Dirs.createTempDir("mdb"));
  }

  /** Whether the socket lives outside the base directory. */
  boolean separateSocketDir() {
    return !socketDir.equals(baseDir);
  }

  Path dataDir() {
    return baseDir.resolve("data");
  }

  Path socket() {
    return socketDir.resolve(SOCKET);
  }

  Path configFile() {
    return baseDir.resolve("my.cnf");
  }

  Path pidFile() {
    return baseDir.resolve("mariadbd.pid");
  }

  Path errorLog() {
    return baseDir.resolve("error.log");
  }

  /** Receives mariadbd's stdout and stderr (normally empty: it logs to the error log). */
  Path outputLog() {
    return baseDir.resolve("mariadbd.out");
  }

  Path installLog() {
    return baseDir.resolve("install.log");
  }
}
