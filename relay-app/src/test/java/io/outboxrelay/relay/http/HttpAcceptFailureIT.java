package io.outboxrelay.relay.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RelayProcess;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.stack.FreePorts;
import io.outboxrelay.testsupport.stack.LocalStack;
import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The health endpoint of a relay process that runs out of file descriptors: its accepts fail
 * ({@code EMFILE}) while its descriptor limit, lowered with {@code prlimit} to a few above what it
 * uses, is taken by idle connections; once the limit is back, {@code /health/live} answers again
 * and the relay said what happened in one WARN.
 */
class HttpAcceptFailureIT {

  private static final String ACCEPT_FAILED = "could not be accepted";

  @TempDir Path dir;
  private final List<Socket> sockets = new ArrayList<>();
  private OutboxDatabase db;
  private RelayProcess relay;

  @AfterEach
  void tearDown() throws IOException {
    for (Socket s : sockets) {
      s.close();
    }
    if (relay != null) {
      relay.close();
    }
    if (db != null) {
      db.close();
    }
  }

  @Test
  void keepsListeningWhenAcceptsFailForWantOfFileDescriptorsAndAnswersOnceTheyAreBack()
      throws Exception {
    db = OutboxDatabase.forPolling();
    int port = FreePorts.findFreePort();
    String name = "emfile-" + Long.toHexString(System.nanoTime() & 0xfffff);
    Path config =
        RelaySettings.polling(db, LocalStack.shared().kafka().bootstrapServers(), name)
            .with("http.port", String.valueOf(port))
            .writeTo(dir.resolve("relay.properties"));
    relay = RelayProcess.start("relay", dir, "run", "--config", config.toString());
    relay.awaitReady(); // no probe before counting: its connection lingers for a second
    long pid = relay.process().pid();
    String[] limits =
        prlimit(pid, "--nofile", "--output=SOFT,HARD", "--noheadings").strip().split("\\s+");

    // A soft limit a few descriptors above what the relay holds: the idle connections take the
    // rest, and the accepts after them fail. (The hard limit stays: raising it again would take
    // CAP_SYS_RESOURCE.)
    long used = openDescriptors(pid);
    prlimit(pid, "--nofile=" + (used + 4) + ":" + limits[1]);
    try {
      for (int i = 0; i < 20; i++) {
        Socket s = new Socket("127.0.0.1", port); // completes in the listen backlog
        sockets.add(s);
        s.getOutputStream().write("GET /health/li".getBytes(StandardCharsets.US_ASCII));
      }
      // Every descriptor taken: the connections left in the backlog find none.
      await().atMost(Duration.ofSeconds(30)).until(() -> openDescriptors(pid) >= used + 4);
      Thread.sleep(1000); // for the loop to try, and fail, to accept them
    } finally {
      prlimit(pid, "--nofile=" + limits[0] + ":" + limits[1]);
    }
    for (Socket s : sockets) {
      s.close();
    }

    // Regression: the failed accept cancelled the listening key, and no probe was answered again.
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(probe(port, "/health/live")).isEqualTo(200));
    assertThat(probe(port, "/health/ready")).isEqualTo(200);
    assertThat(relay.process().isAlive()).isTrue();
    assertThat(relay.log().lines().filter(l -> l.contains(ACCEPT_FAILED)))
        .as(relay.log())
        .hasSize(1)
        .allMatch(l -> l.contains("Too many open files") && l.contains("ulimit -n"));
  }

  private static long openDescriptors(long pid) throws IOException {
    try (Stream<Path> fds = Files.list(Path.of("/proc", String.valueOf(pid), "fd"))) {
      return fds.count();
    }
  }

  /** Runs {@code prlimit --pid <pid> <args>} and returns its output. */
  private static String prlimit(long pid, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("prlimit", "--pid", String.valueOf(pid)));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    return out;
  }

  private static int probe(int port, String path) throws Exception {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    return http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .version(HttpClient.Version.HTTP_1_1)
                .timeout(Duration.ofSeconds(2))
                .build(),
            HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }
}
