package io.outboxrelay.testsupport.stack;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The MariaDB programs a private server needs, found on the {@code PATH} or in the usual Debian
 * locations. Immutable and thread-safe.
 *
 * @param server {@code mariadbd}
 * @param installDb {@code mariadb-install-db}
 * @param client {@code mariadb}, the command-line client
 */
record MariaDbBinaries(Path server, Path installDb, Path client) {

  static final String SERVER_MISSING =
      "mariadbd not found: run scripts/ensure-prereqs.sh (installs mariadb-server with apt)";

  /**
   * Finds the programs.
   *
   * @return the programs
   * @throws LocalStackException with a one-line instruction if one is missing
   */
  static MariaDbBinaries locate() {
    Path server = find("mariadbd").orElseThrow(() -> new LocalStackException(SERVER_MISSING));
    Path installDb =
        find("mariadb-install-db")
            .orElseThrow(
                () ->
                    new LocalStackException(
                        "mariadb-install-db not found: run scripts/ensure-prereqs.sh"
                            + " (installs mariadb-server with apt)"));
    Path client =
        find("mariadb")
            .orElseThrow(
                () ->
                    new LocalStackException(
                        "mariadb client not found: run scripts/ensure-prereqs.sh"
                            + " (installs mariadb-server with apt)"));
    return new MariaDbBinaries(server, installDb, client);
  }

  private static Optional<Path> find(String program) {
    List<String> dirs = new ArrayList<>();
    String path = System.getenv("PATH");
    if (path != null) {
      dirs.addAll(List.of(path.split(File.pathSeparator)));
    }
    // mariadbd lives in /usr/sbin, which is not on every user's PATH.
    dirs.addAll(List.of("/usr/sbin", "/usr/local/sbin", "/usr/bin", "/usr/local/bin"));
    return dirs.stream()
        .filter(dir -> !dir.isEmpty())
        .map(dir -> Path.of(dir, program))
        .filter(Files::isExecutable)
        .findFirst();
  }
}
