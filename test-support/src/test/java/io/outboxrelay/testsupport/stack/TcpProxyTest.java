package io.outboxrelay.testsupport.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The proxy's four behaviours against an echo server on the loopback interface. */
class TcpProxyTest {

  private ServerSocket echo;
  private TcpProxy proxy;

  @BeforeEach
  void startEchoServerBehindAProxy() throws IOException {
    echo = new ServerSocket();
    echo.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    Thread t =
        new Thread(
            () -> {
              while (!echo.isClosed()) {
                try {
                  Socket s = echo.accept();
                  Thread c = new Thread(() -> echoUntilClosed(s));
                  c.setDaemon(true);
                  c.start();
                } catch (IOException closed) {
                  return;
                }
              }
            });
    t.setDaemon(true);
    t.start();
    proxy = TcpProxy.start(echo.getInetAddress().getHostAddress(), echo.getLocalPort());
  }

  @AfterEach
  void close() throws IOException {
    proxy.close();
    echo.close();
  }

  private static void echoUntilClosed(Socket s) {
    try (s) {
      InputStream in = s.getInputStream();
      OutputStream out = s.getOutputStream();
      byte[] b = new byte[1024];
      int n;
      while ((n = in.read(b)) >= 0) {
        out.write(b, 0, n);
        out.flush();
      }
    } catch (IOException ended) {
      // the proxy reset it
    }
  }

  private Socket connect() throws IOException {
    Socket s = new Socket(proxy.host(), proxy.port());
    s.setSoTimeout(1_000);
    return s;
  }

  private static String roundTrip(Socket s, String text) throws IOException {
    s.getOutputStream().write(text.getBytes());
    s.getOutputStream().flush();
    byte[] b = new byte[text.length()];
    int read = 0;
    while (read < b.length) {
      int n = s.getInputStream().read(b, read, b.length - read);
      if (n < 0) {
        throw new IOException("closed");
      }
      read += n;
    }
    return new String(b);
  }

  @Test
  void forwardsBothWays() throws IOException {
    try (Socket s = connect()) {
      assertThat(roundTrip(s, "hello")).isEqualTo("hello");
    }
  }

  @Test
  void cutResetsEveryOpenConnectionAndForwardsNewOnes() throws IOException {
    try (Socket s = connect()) {
      roundTrip(s, "a");
      proxy.cut();
      assertThatThrownBy(() -> roundTrip(s, "b"))
          .isInstanceOf(IOException.class)
          .isNotInstanceOf(SocketTimeoutException.class);
    }
    try (Socket again = connect()) {
      assertThat(roundTrip(again, "c")).isEqualTo("c");
    }
  }

  @Test
  void blackholeDropsBytesSilentlyOnOpenAndNewConnections() throws IOException {
    try (Socket open = connect()) {
      roundTrip(open, "a");
      proxy.blackhole();
      // Neither an error nor an answer: only the client's own timeout ends the wait.
      assertThatThrownBy(() -> roundTrip(open, "b")).isInstanceOf(SocketTimeoutException.class);
      try (Socket fresh = connect()) {
        assertThatThrownBy(() -> roundTrip(fresh, "c")).isInstanceOf(SocketTimeoutException.class);
      }
    }
  }

  @Test
  void restoreResetsConnectionsThatLostBytesAndKeepsIdleOnes() throws IOException {
    try (Socket lost = connect();
        Socket idle = connect()) {
      roundTrip(lost, "a");
      roundTrip(idle, "a");
      proxy.blackhole();
      assertThatThrownBy(() -> roundTrip(lost, "b")).isInstanceOf(SocketTimeoutException.class);
      proxy.restore();

      assertThatThrownBy(() -> roundTrip(lost, "c"))
          .isInstanceOf(IOException.class)
          .isNotInstanceOf(SocketTimeoutException.class);
      assertThat(roundTrip(idle, "d")).isEqualTo("d");
      await().atMost(Duration.ofSeconds(5)).until(() -> proxy.connections() == 1);
    }
  }
}
