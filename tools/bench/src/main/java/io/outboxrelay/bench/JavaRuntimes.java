package io.outboxrelay.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Finds a Java runtime of at least a given feature version for a child JVM that needs a newer Java
 * than the benchmark's own (Debezium Server 3 is built for Java 21). A runtime is a directory with
 * {@code bin/java} and the {@code release} file every JDK has ({@code JAVA_VERSION="25.0.3"}).
 * Stateless.
 */
final class JavaRuntimes {

  /** Where Debian and Ubuntu install JDKs, the Temurin packages among them. */
  static final Path SYSTEM_JVMS = Path.of("/usr/lib/jvm");

  private static final Pattern VERSION = Pattern.compile("(?m)^JAVA_VERSION=\"?([0-9][^\"\\s]*)");

  private JavaRuntimes() {}

  /**
   * A Java runtime found or given.
   *
   * @param home its directory
   * @param version its {@code JAVA_VERSION}, e.g. {@code 25.0.3}
   */
  record Jdk(Path home, String version) {

    /** The {@code java} binary. */
    Path java() {
      return home.resolve("bin").resolve("java");
    }

    int feature() {
      return Integer.parseInt(version.split("[.+-]")[0]);
    }
  }

  /**
   * The runtime to use: the one given, else the running one when it is new enough, else the newest
   * new enough in {@code searched}'s subdirectories.
   *
   * @param feature the lowest feature version, e.g. 21
   * @param given a runtime's home or its {@code bin/java}; {@code null} to search
   * @param searched a directory of runtimes, e.g. {@link #SYSTEM_JVMS}
   * @throws PeerUnavailableException when the runtime given is not one or too old, or none is found
   */
  static Jdk atLeast(int feature, Path given, Path searched) throws PeerUnavailableException {
    if (given != null) {
      Path home =
          Files.isRegularFile(given) ? given.toAbsolutePath().getParent().getParent() : given;
      Jdk runtime =
          read(home)
              .orElseThrow(
                  () ->
                      new PeerUnavailableException(
                          given + " is not a Java runtime (no bin/java and release file)"));
      if (runtime.feature() < feature) {
        throw new PeerUnavailableException(
            given + " is Java " + runtime.version() + "; Java " + feature + " or newer is needed");
      }
      return runtime;
    }
    Optional<Jdk> running = read(Path.of(System.getProperty("java.home")));
    if (running.isPresent() && running.get().feature() >= feature) {
      return running.get();
    }
    try (Stream<Path> dirs = Files.isDirectory(searched) ? Files.list(searched) : Stream.empty()) {
      List<Jdk> found =
          dirs.filter(d -> !Files.isSymbolicLink(d))
              .map(JavaRuntimes::read)
              .flatMap(Optional::stream)
              .filter(r -> r.feature() >= feature)
              .sorted(Comparator.comparingInt(Jdk::feature).reversed())
              .toList();
      if (found.isEmpty()) {
        throw new PeerUnavailableException(
            "Java "
                + feature
                + " or newer is needed, the benchmark runs on Java "
                + Runtime.version().feature()
                + " and "
                + searched
                + " holds no newer one: name one with --server-java <JDK directory>");
      }
      return found.get(0);
    } catch (IOException e) {
      throw new PeerUnavailableException("cannot list " + searched + ": " + e.getMessage());
    }
  }

  /** The runtime in {@code home}, if it is one. */
  static Optional<Jdk> read(Path home) {
    Path release = home.resolve("release");
    if (!Files.isExecutable(home.resolve("bin").resolve("java")) || !Files.isReadable(release)) {
      return Optional.empty();
    }
    try {
      Matcher m = VERSION.matcher(Files.readString(release));
      return m.find() ? Optional.of(new Jdk(home, m.group(1))) : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    }
  }
}
