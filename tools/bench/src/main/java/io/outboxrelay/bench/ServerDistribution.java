package io.outboxrelay.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Debezium Server's distribution, {@code io.debezium:debezium-server-dist:<version>:tar.gz} from
 * Maven Central, downloaded once, checked against the SHA-1 Maven Central publishes beside it and
 * unpacked into a cache outside the build ({@code ~/.cache/outbox-relay-bench/debezium-server-
 * <version>}, or under {@code $XDG_CACHE_HOME}): the server is a separate product run as its own
 * process from its own {@code lib/}, its Debezium and Kafka versions apart from the project's. A
 * directory of that name is complete: the archive is unpacked beside it and moved into place last.
 *
 * @param version e.g. {@code 3.6.0.Final}
 * @param home the unpacked {@code debezium-server} directory
 */
record ServerDistribution(String version, Path home) {

  /** The newest release whose MariaDB connector streams from MariaDB 10.11 here. */
  static final String DEFAULT_VERSION = "3.6.0.Final";

  /** Debezium Server 3 is compiled for Java 21. */
  static final int JAVA_FEATURE = 21;

  static final URI MAVEN_CENTRAL = URI.create("https://repo.maven.apache.org/maven2/");

  private static final Duration UNPACK_TIMEOUT = Duration.ofMinutes(10);

  /** The server's classpath, as its {@code run.sh} puts it together. */
  String classpath() {
    return String.join(
        ":",
        home.resolve(runnerJar(version)).toString(),
        home.resolve("config").resolve("lib").toString(),
        home.resolve("lib").resolve("*").toString());
  }

  /** {@code ~/.cache/outbox-relay-bench}, or {@code $XDG_CACHE_HOME/outbox-relay-bench}. */
  static Path cacheDir() {
    String xdg = System.getenv("XDG_CACHE_HOME");
    Path base =
        xdg == null || xdg.isBlank()
            ? Path.of(System.getProperty("user.home"), ".cache")
            : Path.of(xdg);
    return base.resolve("outbox-relay-bench");
  }

  /**
   * The distribution of {@code version} in {@code cache}, downloaded from {@code repository} and
   * unpacked first if it is not there. Prints a line to stderr before a download.
   *
   * @throws PeerUnavailableException when the download fails, its SHA-1 differs from the one
   *     published, or the archive cannot be unpacked; nothing is left in the cache then
   */
  static ServerDistribution obtain(URI repository, String version, Path cache)
      throws PeerUnavailableException {
    Path home = cache.resolve("debezium-server-" + version);
    if (Files.isRegularFile(home.resolve(runnerJar(version)))) {
      return new ServerDistribution(version, home);
    }
    URI archive =
        repository.resolve(
            "io/debezium/debezium-server-dist/"
                + version
                + "/debezium-server-dist-"
                + version
                + ".tar.gz");
    Path download = null;
    Path unpacked = null;
    try {
      Files.createDirectories(cache);
      HttpClient http =
          HttpClient.newBuilder()
              .connectTimeout(Duration.ofSeconds(30))
              .followRedirects(HttpClient.Redirect.NORMAL)
              .build();
      String published = publishedSha1(http, URI.create(archive + ".sha1"));
      download = Files.createTempFile(cache, "debezium-server-dist-" + version, ".tar.gz.part");
      String actual = fetch(http, archive, download, version, home);
      if (!actual.equals(published)) {
        throw new PeerUnavailableException(
            archive
                + " arrived with SHA-1 "
                + actual
                + " where Maven Central publishes "
                + published
                + ": deleted; run again, or check what stands between this host and "
                + repository.getHost());
      }
      unpacked = Files.createTempDirectory(cache, "debezium-server-" + version + ".");
      untar(download, unpacked);
      Path server = unpacked.resolve("debezium-server");
      if (!Files.isRegularFile(server.resolve(runnerJar(version)))) {
        throw new PeerUnavailableException(
            archive + " holds no debezium-server/" + runnerJar(version));
      }
      moveIntoPlace(server, home);
      return new ServerDistribution(version, home);
    } catch (IOException e) {
      throw new PeerUnavailableException(
          "cannot download Debezium Server "
              + version
              + " from "
              + archive
              + " into "
              + cache
              + ": "
              + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new PeerUnavailableException("interrupted while downloading " + archive);
    } finally {
      deleteQuietly(download);
      deleteQuietly(unpacked);
    }
  }

  static String runnerJar(String version) {
    return "debezium-server-dist-" + version + "-runner.jar";
  }

  /** The hex digest of the {@code .sha1} file, whose first word it is. */
  private static String publishedSha1(HttpClient http, URI uri)
      throws IOException, InterruptedException, PeerUnavailableException {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).build(),
            HttpResponse.BodyHandlers.ofString(StandardCharsets.US_ASCII));
    if (response.statusCode() != 200) {
      throw new PeerUnavailableException(
          uri + " answered HTTP " + response.statusCode() + ": is the version right?");
    }
    String sha1 = response.body().strip().split("\\s+")[0].toLowerCase(Locale.ROOT);
    if (!sha1.matches("[0-9a-f]{40}")) {
      throw new PeerUnavailableException(uri + " holds no SHA-1");
    }
    return sha1;
  }

  /** Streams {@code uri} into {@code file}; returns the SHA-1 of what arrived. */
  private static String fetch(HttpClient http, URI uri, Path file, String version, Path home)
      throws IOException, InterruptedException, PeerUnavailableException {
    HttpResponse<InputStream> response =
        http.send(
            HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(60)).build(),
            HttpResponse.BodyHandlers.ofInputStream());
    try (InputStream body = response.body()) {
      if (response.statusCode() != 200) {
        throw new PeerUnavailableException(uri + " answered HTTP " + response.statusCode());
      }
      long bytes = response.headers().firstValueAsLong("Content-Length").orElse(-1);
      System.err.printf(
          Locale.ROOT,
          "peers: downloading Debezium Server %s (%s) into %s, once...%n",
          version,
          bytes < 0 ? "size unknown" : (bytes >> 20) + " MiB",
          home);
      MessageDigest sha1 = MessageDigest.getInstance("SHA-1");
      try (DigestInputStream in = new DigestInputStream(body, sha1);
          OutputStream out = Files.newOutputStream(file)) {
        in.transferTo(out);
      }
      return HexFormat.of().formatHex(sha1.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-1", e);
    }
  }

  private static void untar(Path archive, Path into)
      throws IOException, InterruptedException, PeerUnavailableException {
    Process tar =
        new ProcessBuilder(List.of("tar", "-xzf", archive.toString(), "-C", into.toString()))
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    if (!tar.waitFor(UNPACK_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
      tar.destroyForcibly();
      throw new PeerUnavailableException("tar did not unpack " + archive + " in " + UNPACK_TIMEOUT);
    }
    if (tar.exitValue() != 0) {
      throw new PeerUnavailableException(
          "tar -xzf " + archive + " failed with exit code " + tar.exitValue());
    }
  }

  /** Moves the unpacked server to {@code home}, unless another run got there first. */
  private static void moveIntoPlace(Path server, Path home) throws IOException {
    try {
      Files.move(server, home, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      if (!Files.isDirectory(home)) {
        throw e;
      }
    }
  }

  private static void deleteQuietly(Path path) {
    if (path == null || !Files.exists(path)) {
      return;
    }
    try (Stream<Path> tree = Files.walk(path)) {
      for (Path p : tree.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      System.err.println("peers: could not delete " + path + ": " + e.getMessage());
    }
  }
}
