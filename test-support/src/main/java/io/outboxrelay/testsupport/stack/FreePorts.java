package io.outboxrelay.testsupport.stack;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Finds free TCP ports on 127.0.0.1.
 *
 * <p>Ports are picked below the kernel's ephemeral range ({@code net.ipv4.ip_local_port_range}): a
 * broker that is stopped for a fault test must be able to bind the same port again, and a port from
 * the ephemeral range may meanwhile have become the local end of some client connection (for
 * example a client reconnecting to that very broker). A port is never handed out twice by the same
 * JVM. Another process can still take a port between the check and its use; the window is small.
 *
 * <p>Thread-safe.
 */
public final class FreePorts {

  private static final int LOWEST = 15_000;
  private static final int FALLBACK_EPHEMERAL_START = 32_768;
  private static final int ATTEMPTS = 500;
  private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();
  private static final InetAddress LOOPBACK = loopback();

  private FreePorts() {}

  /**
   * Returns a TCP port that nothing listens on at 127.0.0.1 and that this JVM has not handed out
   * before.
   *
   * @return a port number
   * @throws LocalStackException if no free port was found after many attempts
   */
  public static int findFreePort() {
    int upper = ephemeralRangeStart();
    ThreadLocalRandom random = ThreadLocalRandom.current();
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      int candidate = random.nextInt(LOWEST, upper);
      if (isFree(candidate) && HANDED_OUT.add(candidate)) {
        return candidate;
      }
    }
    throw new LocalStackException(
        "no free TCP port found on 127.0.0.1 between " + LOWEST + " and " + upper);
  }

  /**
   * Returns {@code count} distinct free ports, see {@link #findFreePort()}.
   *
   * @param count how many ports, at least 1
   * @return the ports
   */
  public static int[] findFreePorts(int count) {
    if (count < 1) {
      throw new IllegalArgumentException("count must be at least 1: " + count);
    }
    int[] ports = new int[count];
    for (int i = 0; i < count; i++) {
      ports[i] = findFreePort();
    }
    return ports;
  }

  /**
   * Tells whether a TCP port can be bound on 127.0.0.1 right now.
   *
   * @param port the port
   * @return {@code true} if binding succeeded
   */
  public static boolean isFree(int port) {
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(false);
      socket.bind(new InetSocketAddress(LOOPBACK, port), 1);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static InetAddress loopback() {
    try {
      return InetAddress.getByAddress(new byte[] {127, 0, 0, 1});
    } catch (IOException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private static int ephemeralRangeStart() {
    Path range = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    try {
      String[] bounds = Files.readString(range).trim().split("\\s+");
      int start = Integer.parseInt(bounds[0]);
      return start > LOWEST + 1_000 ? start : FALLBACK_EPHEMERAL_START;
    } catch (IOException | RuntimeException e) {
      return FALLBACK_EPHEMERAL_START;
    }
  }
}
