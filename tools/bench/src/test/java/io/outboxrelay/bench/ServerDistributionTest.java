package io.outboxrelay.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The download of Debezium Server's distribution, from a repository served on 127.0.0.1. */
class ServerDistributionTest {

  private static final String VERSION = "9.9.9.Final";
  private static final String PATH =
      "/maven2/io/debezium/debezium-server-dist/"
          + VERSION
          + "/debezium-server-dist-"
          + VERSION
          + ".tar.gz";

  @TempDir Path temp;

  private final Map<String, byte[]> served = new ConcurrentHashMap<>();
  private final AtomicInteger archiveRequests = new AtomicInteger();
  private HttpServer server;
  private URI repository;

  @BeforeEach
  void serve() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setExecutor(Executors.newSingleThreadExecutor());
    server.createContext(
        "/",
        exchange -> {
          String path = exchange.getRequestURI().getPath();
          if (path.equals(PATH)) {
            archiveRequests.incrementAndGet();
          }
          byte[] body = served.get(path);
          exchange.sendResponseHeaders(body == null ? 404 : 200, body == null ? -1 : body.length);
          if (body != null) {
            try (OutputStream out = exchange.getResponseBody()) {
              out.write(body);
            }
          }
          exchange.close();
        });
    server.start();
    repository = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/maven2/");
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  @Test
  void unpacksTheDistributionOnceWhenItsSha1IsThePublishedOne() throws Exception {
    byte[] archive = archive();
    served.put(PATH, archive);
    served.put(PATH + ".sha1", (sha1(archive) + "  debezium-server-dist.tar.gz\n").getBytes());
    Path cache = temp.resolve("cache");

    ServerDistribution first = ServerDistribution.obtain(repository, VERSION, cache);
    ServerDistribution again = ServerDistribution.obtain(repository, VERSION, cache);

    assertThat(first.home()).isEqualTo(cache.resolve("debezium-server-" + VERSION));
    assertThat(first.home().resolve("lib").resolve("connector.jar")).hasContent("connector");
    assertThat(again).isEqualTo(first);
    assertThat(archiveRequests).hasValue(1);
    assertThat(first.classpath())
        .isEqualTo(
            first.home().resolve(ServerDistribution.runnerJar(VERSION))
                + ":"
                + first.home().resolve("config/lib")
                + ":"
                + first.home().resolve("lib/*"));
    try (var left = Files.list(cache)) {
      assertThat(left).containsExactly(first.home());
    }
  }

  @Test
  void refusesAnArchiveWhoseSha1IsNotThePublishedOneAndLeavesNothingBehind() throws Exception {
    byte[] archive = archive();
    served.put(PATH, archive);
    served.put(PATH + ".sha1", "0123456789abcdef0123456789abcdef01234567".getBytes());
    Path cache = temp.resolve("cache");

    assertThatThrownBy(() -> ServerDistribution.obtain(repository, VERSION, cache))
        .isInstanceOf(PeerUnavailableException.class)
        .hasMessageContaining("arrived with SHA-1 " + sha1(archive))
        .hasMessageContaining("publishes 0123456789abcdef0123456789abcdef01234567");
    try (var left = Files.list(cache)) {
      assertThat(left).isEmpty();
    }
  }

  @Test
  void namesTheAddressThatAnsweredWhenTheVersionIsNotPublished() {
    assertThatThrownBy(() -> ServerDistribution.obtain(repository, VERSION, temp.resolve("c")))
        .isInstanceOf(PeerUnavailableException.class)
        .hasMessageContaining(repository + PATH.substring("/maven2/".length()) + ".sha1")
        .hasMessageContaining("HTTP 404");
  }

  /** A tar.gz laid out as the distribution is: debezium-server/ with the runner jar and lib/. */
  private byte[] archive() throws Exception {
    Path root = temp.resolve("src");
    Path server = root.resolve("debezium-server");
    Files.createDirectories(server.resolve("lib"));
    Files.writeString(server.resolve(ServerDistribution.runnerJar(VERSION)), "runner");
    Files.writeString(server.resolve("lib").resolve("connector.jar"), "connector");
    Path archive = temp.resolve("dist.tar.gz");
    Process tar =
        new ProcessBuilder(
                List.of(
                    "tar", "-czf", archive.toString(), "-C", root.toString(), "debezium-server"))
            .inheritIO()
            .start();
    assertThat(tar.waitFor()).isZero();
    return Files.readAllBytes(archive);
  }

  private static String sha1(byte[] bytes) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(bytes));
  }
}
