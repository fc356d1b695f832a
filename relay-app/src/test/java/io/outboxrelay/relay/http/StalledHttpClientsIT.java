package io.outboxrelay.relay.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxrelay.relay.testing.InProcessRelays;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.SourceDatabase;
import io.outboxrelay.testsupport.stack.FreePorts;
import io.outboxrelay.testsupport.stack.LocalStack;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A relay's health endpoints while clients stall: twenty connections that sent half a request line
 * do not delay {@code /health/live} and {@code /health/ready}, the relay closes them after its
 * request deadline, and probes are answered while more clients than the connection limit hold
 * connections without sending a request (the oldest of those are closed). A polling relay on the
 * machine's PostgreSQL, in this JVM, publishing to the JVM's shared Kafka broker (the tests never
 * stop it; each has its own topics).
 */
class StalledHttpClientsIT {

  private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(1);

  private final List<Socket> sockets = new ArrayList<>();
  private SourceDatabase db;
  private InProcessRelays relays;
  private HttpClient http;
  private int port;

  @BeforeEach
  void setUp() throws Exception {
    String name = "stall-" + Long.toHexString(System.nanoTime() & 0xfffff);
    db = OutboxDatabase.postgres();
    port = FreePorts.findFreePort();
    relays = new InProcessRelays();
    relays.start(
        RelaySettings.polling(db, LocalStack.shared().kafka().bootstrapServers(), name)
            .with("http.port", String.valueOf(port)));
    // A new connection per request, as an orchestrator's probes make them.
    http = HttpClient.newBuilder().connectTimeout(PROBE_TIMEOUT).build();
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertThat(probe("/health/ready").statusCode()).isEqualTo(200));
  }

  @AfterEach
  void tearDown() throws IOException {
    for (Socket s : sockets) {
      s.close();
    }
    if (relays != null) {
      relays.close();
    }
    if (db != null) {
      db.close();
    }
  }

  @Test
  void probesAnswerWithinASecondWhileTwentyClientsStallAndTheStalledAreClosedAtTheDeadline()
      throws Exception {
    long opened = System.nanoTime();
    List<Socket> stalled = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      stalled.add(stall("GET /health/li"));
    }

    // Probes, one after the other, for most of the request deadline.
    int probes = 0;
    while (Duration.ofNanos(System.nanoTime() - opened)
            .compareTo(HttpEndpoint.REQUEST_DEADLINE.minusSeconds(2))
        < 0) {
      assertProbeAnswersInTime("/health/live");
      assertProbeAnswersInTime("/health/ready");
      probes += 2;
    }
    assertThat(probes).isGreaterThanOrEqualTo(4);
    for (Socket s : stalled) {
      assertThat(s.isClosed()).isFalse();
    }

    for (Socket s : stalled) {
      assertThat(readUntilClosed(s, HttpEndpoint.REQUEST_DEADLINE.plusSeconds(3)))
          .as("closed by the relay without an answer")
          .isEmpty();
    }
    Duration closedAfter = Duration.ofNanos(System.nanoTime() - opened);
    assertThat(closedAfter)
        .isGreaterThanOrEqualTo(HttpEndpoint.REQUEST_DEADLINE.minusMillis(100))
        .isLessThan(HttpEndpoint.REQUEST_DEADLINE.plusSeconds(3));
    assertProbeAnswersInTime("/health/ready");
  }

  @Test
  void probesAnswerWhileMoreClientsThanTheLimitHoldConnectionsWithoutARequest() throws Exception {
    List<Socket> held = new ArrayList<>();
    for (int i = 0; i < HttpEndpoint.MAX_CONNECTIONS + 8; i++) {
      held.add(stall(i % 2 == 0 ? "" : "GET /metr"));
    }

    // Regression: with 32 such connections open, every probe was answered 503 "too many
    // connections" until they went. Now the oldest of them make room for each probe.
    for (int i = 0; i < 10; i++) {
      assertProbeAnswersInTime("/health/live");
      assertProbeAnswersInTime("/health/ready");
    }

    // Those closed first are the oldest, before the request deadline, without an answer.
    assertThat(readUntilClosed(held.get(0), PROBE_TIMEOUT)).isEmpty();
  }

  private void assertProbeAnswersInTime(String path) throws Exception {
    long start = System.nanoTime();
    HttpResponse<String> response = probe(path);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(PROBE_TIMEOUT);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
  }

  /** One request on a new connection; fails after a second without an answer. */
  private HttpResponse<String> probe(String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .version(HttpClient.Version.HTTP_1_1)
            .timeout(PROBE_TIMEOUT)
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** A connection that sent {@code partial} and then nothing. */
  private Socket stall(String partial) throws IOException {
    Socket s = new Socket("127.0.0.1", port);
    sockets.add(s);
    s.getOutputStream().write(partial.getBytes(StandardCharsets.US_ASCII));
    s.getOutputStream().flush();
    return s;
  }

  /** What the relay sends until it closes the connection; fails when it does not close in time. */
  private static String readUntilClosed(Socket s, Duration within) throws IOException {
    long deadline = System.nanoTime() + within.toNanos();
    StringBuilder text = new StringBuilder();
    InputStream in = s.getInputStream();
    byte[] buffer = new byte[4096];
    try {
      while (true) {
        long left = Math.max(1, (deadline - System.nanoTime()) / 1_000_000);
        s.setSoTimeout((int) left);
        int n = in.read(buffer);
        if (n < 0) {
          return text.toString();
        }
        text.append(new String(buffer, 0, n, StandardCharsets.UTF_8));
      }
    } catch (SocketTimeoutException e) {
      throw new AssertionError("the relay kept the connection open for " + within, e);
    } catch (IOException e) {
      return text.toString(); // reset after the relay closed
    }
  }
}
