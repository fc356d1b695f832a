package io.outboxrelay.relay.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The endpoint's connection handling on raw sockets, with short deadlines: answers, their framing,
 * bad requests, and what happens to clients that stall or come in too great a number.
 */
class ConnectionLoopTest {

  private static final Duration REQUEST_DEADLINE = Duration.ofMillis(600);

  /** An answer larger than the socket buffers take, so that a client that reads none holds it. */
  private static final int BIG_ANSWER = 16 << 20;

  private final List<Socket> sockets = new ArrayList<>();
  private ConnectionLoop loop;

  @AfterEach
  void tearDown() throws IOException {
    for (Socket s : sockets) {
      s.close();
    }
    if (loop != null) {
      loop.close();
    }
  }

  private void start(int maxConnections) throws IOException {
    start(maxConnections, ServerSocketChannel::accept);
  }

  private void start(int maxConnections, ConnectionLoop.Acceptor acceptor) throws IOException {
    loop =
        ConnectionLoop.start(
            new InetSocketAddress("127.0.0.1", 0),
            new ConnectionLoop.Limits(maxConnections, REQUEST_DEADLINE, Duration.ofSeconds(2)),
            request ->
                switch (request.path()) {
                  case "/fail" -> throw new IllegalStateException("boom");
                  case "/big" -> Reply.text(200, "x".repeat(BIG_ANSWER));
                  default -> Reply.text(200, request.method() + " " + request.path() + "\n");
                },
            "test",
            acceptor);
  }

  @Test
  void answersARequestWithItsLengthAndClosesTheConnection() throws Exception {
    start(4);

    String response = exchange("GET /health/ready?x=1 HTTP/1.1\r\nHost: a\r\n\r\n");

    assertThat(response)
        .startsWith("HTTP/1.1 200 OK\r\n")
        .contains("\r\nContent-Length: 18\r\n", "\r\nConnection: close\r\n")
        .containsPattern("\r\nDate: \\w{3}, \\d{2} \\w{3} \\d{4} \\d{2}:\\d{2}:\\d{2} GMT\r\n")
        .endsWith("\r\n\r\nGET /health/ready\n");
  }

  @Test
  void answersHeadWithTheHeadersOfGetAndNoBody() throws Exception {
    start(4);

    String response = exchange("HEAD /metrics HTTP/1.0\n\n");

    assertThat(response).startsWith("HTTP/1.1 200 OK\r\n").contains("Content-Length: 14\r\n");
    assertThat(response).endsWith("\r\n\r\n");
  }

  @Test
  void answersWhatIsNotAnHttpRequestLineWith400() throws Exception {
    start(4);

    assertThat(exchange("HELLO\r\n\r\n")).startsWith("HTTP/1.1 400 ");
    assertThat(exchange("GET /a b HTTP/1.1\r\n\r\n")).startsWith("HTTP/1.1 400 ");
    assertThat(exchange("GET http://[bad HTTP/1.1\r\n\r\n")).startsWith("HTTP/1.1 400 ");
  }

  @Test
  void answersAHeadLargerThanTheLimitWith431() throws Exception {
    start(4);

    String big = "GET / HTTP/1.1\r\nX: " + "a".repeat(ConnectionLoop.MAX_HEAD_BYTES) + "\r\n\r\n";

    assertThat(exchange(big)).startsWith("HTTP/1.1 431 ");
  }

  @Test
  void answersAFailingHandlerWith500AndKeepsServing() throws Exception {
    start(4);

    assertThat(exchange("GET /fail HTTP/1.1\r\n\r\n")).startsWith("HTTP/1.1 500 ");
    assertThat(exchange("GET /ok HTTP/1.1\r\n\r\n")).startsWith("HTTP/1.1 200 ");
  }

  @Test
  void answersARequestWithAnUnreadBodyWithoutResettingTheConnection() throws Exception {
    start(4);

    String response =
        exchange("POST /x HTTP/1.1\r\nContent-Length: 5000\r\n\r\n" + "b".repeat(5000));

    assertThat(response).startsWith("HTTP/1.1 200 ").endsWith("POST /x\n");
  }

  @Test
  void answersOthersWhileClientsStallAndClosesTheStalledAfterTheDeadline() throws Exception {
    start(8);
    List<Socket> stalled = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      stalled.add(stall("GET /health/li"));
    }
    long start = System.nanoTime();

    assertThat(exchange("GET /health/live HTTP/1.1\r\n\r\n")).startsWith("HTTP/1.1 200 ");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(REQUEST_DEADLINE);

    for (Socket s : stalled) {
      assertThat(readToEnd(s)).as("the server closes without an answer").isEmpty();
    }
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .isGreaterThanOrEqualTo(REQUEST_DEADLINE.minusMillis(100));
  }

  @Test
  void closesTheOldestConnectionWithoutARequestToServeANewOneAtTheLimit() throws Exception {
    start(3);
    List<Socket> stalled = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      stalled.add(stall(""));
      // Accepted in order, so that the first is the oldest.
      Thread.sleep(50);
    }

    // Regression: a fourth connection used to be refused (503) while three stalled.
    for (int i = 0; i < 3; i++) {
      assertThat(exchange("GET /health/live HTTP/1.1\r\n\r\n")).startsWith("HTTP/1.1 200 ");
    }

    assertThat(readToEnd(stalled.get(0))).as("the oldest, closed without an answer").isEmpty();
  }

  @Test
  void refusesANewConnectionOnlyWhenEveryOpenOneHasAnAnswerNotYetTaken() throws Exception {
    start(2);
    // Two clients that ask for a large answer and read only its first byte: being answered.
    for (int i = 0; i < 2; i++) {
      Socket s = stall("GET /big HTTP/1.1\r\n\r\n");
      s.setSoTimeout(5000);
      assertThat(s.getInputStream().read()).isEqualTo('H');
    }

    await()
        .atMost(Duration.ofSeconds(2))
        .untilAsserted(
            () -> assertThat(exchange("GET / HTTP/1.1\r\n\r\n")).startsWith("HTTP/1.1 503 "));

    // Their answers are not taken within the response deadline: closed, room again.
    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () -> assertThat(exchange("GET / HTTP/1.1\r\n\r\n")).startsWith("HTTP/1.1 200 "));
  }

  @Test
  void keepsListeningWhenAcceptFailsAndServesTheConnectionsThatWaited() throws Exception {
    // Regression: one failed accept (EMFILE) cancelled the listening key and the endpoint went
    // silent for good. Here the first accepts fail as they do when the process is out of file
    // descriptors; the kernel keeps the connection in the listen backlog meanwhile.
    AtomicInteger failures = new AtomicInteger(3);
    AtomicInteger attempts = new AtomicInteger();
    start(
        4,
        server -> {
          attempts.incrementAndGet();
          if (failures.getAndDecrement() > 0) {
            throw new IOException("Too many open files");
          }
          return server.accept();
        });
    long started = System.nanoTime();

    assertThat(exchange("GET /health/live HTTP/1.1\r\n\r\n")).startsWith("HTTP/1.1 200 ");

    // Paused between failed accepts rather than spinning.
    assertThat(Duration.ofNanos(System.nanoTime() - started))
        .isGreaterThanOrEqualTo(Duration.ofMillis(3 * ConnectionLoop.ACCEPT_BACKOFF_MILLIS - 50));
    assertThat(attempts.get()).isLessThanOrEqualTo(6);
    assertThat(exchange("GET /again HTTP/1.1\r\n\r\n")).startsWith("HTTP/1.1 200 ");
  }

  @Test
  void closeReleasesThePortAndIsIdempotent() throws Exception {
    start(4);
    int port = loop.port();
    Socket open = stall("GET");

    loop.close();
    loop.close();

    assertThat(readToEnd(open)).isEmpty();
    try (java.net.ServerSocket again = new java.net.ServerSocket()) {
      again.setReuseAddress(true);
      again.bind(new InetSocketAddress("127.0.0.1", port));
    }
  }

  /** A connection that sent {@code partial} and waits. */
  private Socket stall(String partial) throws IOException {
    Socket s = new Socket("127.0.0.1", loop.port());
    sockets.add(s);
    s.getOutputStream().write(partial.getBytes(StandardCharsets.ISO_8859_1));
    s.getOutputStream().flush();
    return s;
  }

  /** Sends the request and reads the answer until the server closes. */
  private String exchange(String request) throws IOException {
    try (Socket s = new Socket("127.0.0.1", loop.port())) {
      OutputStream out = s.getOutputStream();
      try {
        out.write(request.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
      } catch (IOException e) {
        // refused before the whole request went: the answer may be there all the same
      }
      return readToEnd(s);
    }
  }

  /** What the server sends until it closes; fails when it does not close within 5 s. */
  private static String readToEnd(Socket s) throws IOException {
    s.setSoTimeout(5000);
    InputStream in = s.getInputStream();
    StringBuilder text = new StringBuilder();
    byte[] buffer = new byte[4096];
    try {
      for (int n; (n = in.read(buffer)) >= 0; ) {
        text.append(new String(buffer, 0, n, StandardCharsets.ISO_8859_1));
      }
    } catch (SocketTimeoutException e) {
      throw new AssertionError("the server did not close the connection; so far: " + text, e);
    } catch (IOException e) {
      // reset by the server after closing: what came before stands
    }
    return text.toString();
  }
}
