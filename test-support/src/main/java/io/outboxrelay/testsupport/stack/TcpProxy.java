package io.outboxrelay.testsupport.stack;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on the loopback interface between clients and one server, for network faults: it
 * forwards, cuts every connection, or blackholes them, and is restored. JDK only: a thread accepts,
 * and each connection has one thread per direction.
 *
 * <ul>
 *   <li><b>Forwarding</b> (at start, and after {@link #restore()}): bytes and closes pass through
 *       as they come.
 *   <li><b>{@link #cut()}</b>: every open connection is reset at once on both sides ({@code RST},
 *       as a firewall rejecting the flow or a peer host rebooting); new connections are accepted
 *       and forwarded as before.
 *   <li><b>{@link #blackhole()}</b>: the way a lost network path looks to both ends. Nothing
 *       crosses: every byte either side sends is read and dropped (so neither side's writes block
 *       or fail: its kernel has the bytes acknowledged, as TCP would until it gave up
 *       retransmitting), and a side that closes or resets its socket is not told to the other. New
 *       connections are accepted (the client's connect succeeds) but never reach the server:
 *       whatever the client sends is dropped and it hears nothing. Only a side's own timeout ends
 *       its wait.
 *   <li><b>{@link #restore()}</b> after a blackhole: forwarding again. A connection that lost bytes
 *       or a close during the blackhole cannot go on intact (TCP would have retransmitted the
 *       bytes; here they are gone, and the server side may have ended its session), so it is reset
 *       on both sides, as the far host answers a connection it has forgotten; one that carried
 *       nothing meanwhile goes on.
 * </ul>
 *
 * <p>Thread-safe: the fault methods may be called from any thread. {@link #close()} resets every
 * connection and stops accepting.
 */
public final class TcpProxy implements AutoCloseable {

  private static final AtomicInteger PROXIES = new AtomicInteger();

  private volatile InetSocketAddress target;
  private final ServerSocket listener;
  private final Set<Link> links = ConcurrentHashMap.newKeySet();
  private final String name;
  private volatile boolean blackholed;
  private volatile boolean closed;

  private TcpProxy(String targetHost, int targetPort) throws IOException {
    this.target = InetSocketAddress.createUnresolved(targetHost, targetPort);
    this.listener = new ServerSocket();
    this.listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
    this.name = "tcp-proxy-" + PROXIES.incrementAndGet();
  }

  /**
   * Starts a proxy on a free loopback port that forwards to {@code targetHost:targetPort}.
   *
   * @param targetHost the server's host
   * @param targetPort the server's port
   * @return the forwarding proxy
   * @throws UncheckedIOException when no port can be bound
   */
  public static TcpProxy start(String targetHost, int targetPort) {
    try {
      TcpProxy p = new TcpProxy(targetHost, targetPort);
      Thread t = new Thread(p::acceptLoop, p.name + "-accept");
      t.setDaemon(true);
      t.start();
      return p;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The host clients connect to: the loopback address. */
  public String host() {
    return listener.getInetAddress().getHostAddress();
  }

  /** The port clients connect to. */
  public int port() {
    return listener.getLocalPort();
  }

  /** How many client connections are open through the proxy now. */
  public int connections() {
    return links.size();
  }

  /** Whether the proxy blackholes now. */
  public boolean isBlackholed() {
    return blackholed;
  }

  /** Resets every open connection on both sides; later connections are forwarded. */
  public void cut() {
    for (Link l : List.copyOf(links)) {
      l.reset();
    }
  }

  /**
   * Forwards later connections to another server, as a virtual IP or a DNS name moved to a promoted
   * standby does; open connections stay where they are (call {@link #cut()} to end them).
   *
   * @param host the new server's host
   * @param port the new server's port
   */
  public void retarget(String host, int port) {
    this.target = InetSocketAddress.createUnresolved(host, port);
  }

  /** From now on nothing crosses, in either direction, on open and new connections alike. */
  public void blackhole() {
    blackholed = true;
  }

  /**
   * Forwards again; resets the connections that lost bytes or a close while blackholed (see the
   * class comment).
   */
  public void restore() {
    List<Link> broken = new ArrayList<>();
    synchronized (this) {
      blackholed = false;
      for (Link l : links) {
        if (l.broken) {
          broken.add(l);
        }
      }
    }
    broken.forEach(Link::reset);
  }

  @Override
  public void close() {
    closed = true;
    try {
      listener.close();
    } catch (IOException ignored) {
      // closing anyway
    }
    cut();
  }

  @Override
  public String toString() {
    InetSocketAddress t = target;
    return name + " " + host() + ":" + port() + " -> " + t.getHostString() + ":" + t.getPort();
  }

  private void acceptLoop() {
    while (!closed) {
      Socket client;
      try {
        client = listener.accept();
      } catch (IOException e) {
        if (closed) {
          return;
        }
        continue;
      }
      Link link = new Link(client);
      links.add(link);
      link.open();
    }
  }

  /** One client connection and, once forwarded, its connection to the server. */
  private final class Link {
    private final Socket client;
    private volatile Socket server; // null while the connection was made into a blackhole
    private volatile boolean broken; // lost bytes or a close while blackholed

    Link(Socket client) {
      this.client = client;
    }

    void open() {
      if (blackholed) {
        broken = true; // never reaches the server; reset when the path comes back
        pump(client, null, "c>s");
        return;
      }
      try {
        Socket s = new Socket();
        InetSocketAddress t = target;
        s.connect(new InetSocketAddress(t.getHostString(), t.getPort()), 10_000);
        s.setTcpNoDelay(true);
        client.setTcpNoDelay(true);
        server = s;
      } catch (IOException e) {
        reset(); // as the server refusing
        return;
      }
      pump(client, server, "c>s");
      pump(server, client, "s>c");
    }

    private void pump(Socket from, Socket to, String direction) {
      Thread t =
          new Thread(() -> copy(from, to), name + "-" + direction + "-" + from.getLocalPort());
      t.setDaemon(true);
      t.start();
    }

    /** Copies until {@code from} ends; drops what arrives while blackholed. */
    private void copy(Socket from, Socket to) {
      copyUntilEnd(from, to);
      ended();
    }

    private void copyUntilEnd(Socket from, Socket to) {
      byte[] buffer = new byte[16 * 1024];
      try {
        InputStream in = from.getInputStream();
        OutputStream out = to == null ? null : to.getOutputStream();
        while (true) {
          int n = in.read(buffer);
          if (n < 0) {
            break;
          }
          if (blackholed) {
            broken = true; // dropped: this connection cannot go on intact
            continue;
          }
          if (broken || out == null) {
            reset(); // the path is back, and this connection lost bytes: as restore() does
            break;
          }
          out.write(buffer, 0, n);
          out.flush();
        }
      } catch (IOException e) {
        // this side reset, or the other side was reset: an end
      }
    }

    /** One side ended: passed on while forwarding; kept from the other side while blackholed. */
    private void ended() {
      synchronized (TcpProxy.this) {
        if (blackholed) {
          broken = true;
          return; // restore() resets it
        }
      }
      reset();
    }

    void reset() {
      links.remove(this);
      abort(client);
      Socket s = server;
      if (s != null) {
        abort(s);
      }
    }

    private void abort(Socket s) {
      try {
        if (!s.isClosed()) {
          s.setSoLinger(true, 0); // RST, not FIN
        }
      } catch (SocketException ignored) {
        // already gone
      }
      try {
        s.close();
      } catch (IOException ignored) {
        // already gone
      }
    }
  }
}
