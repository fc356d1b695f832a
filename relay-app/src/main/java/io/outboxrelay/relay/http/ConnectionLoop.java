package io.outboxrelay.relay.http;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The endpoint's connections, all served by one thread on non-blocking sockets: it accepts a
 * connection, reads the request's head, asks the handler for the answer, writes it and closes the
 * connection ({@code Connection: close}: one request per connection). No client can block the
 * thread, so a client that stalls holds one connection and delays no other answer:
 *
 * <ul>
 *   <li>a request's head (request line and headers, at most {@value #MAX_HEAD_BYTES} bytes, else
 *       431) must arrive within {@link Limits#requestDeadline()} of the accept, or the connection
 *       is closed without an answer;
 *   <li>the answer must be taken within {@link Limits#responseDeadline()}, or the connection is
 *       closed; after it the connection stays open for at most a second, for the client to close
 *       first (so that unread bytes it sent do not reset the answer);
 *   <li>at most {@link Limits#maxConnections()} are open; one more is accepted, answered 503 and
 *       closed at once rather than left waiting in the listen backlog.
 * </ul>
 *
 * The handler runs on the loop's thread and must not block. Thread-safe: {@link #close()} may be
 * called from any thread and is idempotent.
 */
final class ConnectionLoop implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ConnectionLoop.class);

  /** The largest request head read; a longer one is answered 431. */
  static final int MAX_HEAD_BYTES = 8192;

  /** How long a connection stays open after its answer, for the client to close it. */
  private static final long LINGER_NANOS = TimeUnit.SECONDS.toNanos(1);

  /** How often at most refused connections are logged. */
  private static final long REFUSAL_LOG_NANOS = TimeUnit.MINUTES.toNanos(1);

  /**
   * The loop's limits.
   *
   * @param maxConnections connections open at once; more are refused
   * @param requestDeadline from the accept to the end of the request's head
   * @param responseDeadline for the client to take the answer
   */
  record Limits(int maxConnections, Duration requestDeadline, Duration responseDeadline) {}

  /** What a connection is waiting for. */
  private enum State {
    /** The request's head, until the request deadline. */
    READING,
    /** The client to take the answer, until the response deadline. */
    WRITING,
    /** The client to close after the answer, for at most a second; what it sends is dropped. */
    LINGERING
  }

  /** One open connection; touched by the loop's thread only. */
  private static final class Connection {
    private final SocketChannel channel;
    private final ByteBuffer in = ByteBuffer.allocate(MAX_HEAD_BYTES);
    private ByteBuffer out;
    private State state = State.READING;
    private long deadline;

    private Connection(SocketChannel channel, long deadline) {
      this.channel = channel;
      this.deadline = deadline;
    }
  }

  private final ServerSocketChannel server;
  private final Selector selector;
  private final Limits limits;
  private final Function<RequestHead, Reply> handler;
  private final String context;
  private final Thread thread;
  private volatile boolean closing;

  // The loop thread's own.
  private int open;
  private int refused;
  private long refusalLogged = System.nanoTime() - REFUSAL_LOG_NANOS;

  private ConnectionLoop(
      ServerSocketChannel server,
      Selector selector,
      Limits limits,
      Function<RequestHead, Reply> handler,
      String context) {
    this.server = server;
    this.selector = selector;
    this.limits = limits;
    this.handler = handler;
    this.context = context;
    this.thread = new Thread(this::run, "relay-http");
    thread.setDaemon(true);
  }

  /**
   * Binds the address and starts serving on a new daemon thread.
   *
   * @param address where to listen
   * @param limits the limits
   * @param handler the answer to each request; runs on the loop's thread, must not block
   * @param context the log prefix
   * @return the running loop
   * @throws IOException when the address cannot be bound
   */
  static ConnectionLoop start(
      InetSocketAddress address,
      Limits limits,
      Function<RequestHead, Reply> handler,
      String context)
      throws IOException {
    ServerSocketChannel server = ServerSocketChannel.open();
    Selector selector = null;
    try {
      server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
      server.bind(address, 64);
      server.configureBlocking(false);
      selector = Selector.open();
      server.register(selector, SelectionKey.OP_ACCEPT);
    } catch (IOException | RuntimeException e) {
      server.close();
      if (selector != null) {
        selector.close();
      }
      throw e;
    }
    ConnectionLoop loop = new ConnectionLoop(server, selector, limits, handler, context);
    loop.thread.start();
    return loop;
  }

  /**
   * The port the loop listens on.
   *
   * @return the port
   */
  int port() {
    return server.socket().getLocalPort();
  }

  private void run() {
    try {
      while (!closing) {
        selector.select(this::ready, untilNextDeadline());
        closeExpired(System.nanoTime());
      }
    } catch (IOException | RuntimeException e) {
      if (!closing) {
        LOG.error(
            "[{}] the HTTP endpoint stopped ({}): /metrics and /health no longer answer; restart"
                + " the relay",
            context,
            e.toString());
      }
    } finally {
      for (SelectionKey key : selector.keys()) {
        closeQuietly(key);
      }
      closeQuietly(server);
      closeQuietly(selector);
    }
  }

  /** The select timeout: until the nearest deadline, at least 1 ms; 0 (none) when idle. */
  private long untilNextDeadline() {
    long now = System.nanoTime();
    long nearest = Long.MAX_VALUE;
    for (SelectionKey key : selector.keys()) {
      if (key.attachment() instanceof Connection c) {
        nearest = Math.min(nearest, Math.max(0, c.deadline - now));
      }
    }
    return nearest == Long.MAX_VALUE ? 0 : Math.max(1, TimeUnit.NANOSECONDS.toMillis(nearest) + 1);
  }

  private void ready(SelectionKey key) {
    try {
      if (key.isAcceptable()) {
        accept();
      } else if (key.attachment() instanceof Connection c) {
        if (key.isReadable()) {
          read(key, c);
        } else if (key.isWritable()) {
          write(key, c);
        }
      }
    } catch (IOException | CancelledKeyException e) {
      closeQuietly(key); // the client reset or went away
    }
  }

  private void accept() throws IOException {
    SocketChannel channel;
    while ((channel = server.accept()) != null) {
      if (open >= limits.maxConnections()) {
        refuse(channel);
        continue;
      }
      channel.configureBlocking(false);
      long deadline = System.nanoTime() + limits.requestDeadline().toNanos();
      channel.register(selector, SelectionKey.OP_READ, new Connection(channel, deadline));
      open++;
    }
  }

  /** Answers 503 where the socket takes it at once, and closes. */
  private void refuse(SocketChannel channel) {
    try (channel) {
      channel.configureBlocking(false);
      channel.write(Reply.TOO_MANY_CONNECTIONS.bytes(false));
    } catch (IOException e) {
      // closed either way
    }
    refused++;
    long now = System.nanoTime();
    if (now - refusalLogged >= REFUSAL_LOG_NANOS) {
      LOG.warn(
          "[{}] HTTP endpoint: refused {} connection(s) in the last minute: {} are open, the"
              + " limit; a client that opens connections without sending requests holds each for"
              + " up to {} s",
          context,
          refused,
          open,
          limits.requestDeadline().toSeconds());
      refused = 0;
      refusalLogged = now;
    }
  }

  private void read(SelectionKey key, Connection c) throws IOException {
    if (c.state == State.LINGERING) {
      c.in.clear();
    }
    if (c.channel.read(c.in) < 0) {
      closeQuietly(key);
      return;
    }
    if (c.state != State.READING) {
      return;
    }
    int end = RequestHead.endOf(c.in);
    if (end < 0) {
      if (!c.in.hasRemaining()) {
        answer(key, c, Reply.HEAD_TOO_LARGE, false);
      }
      return;
    }
    RequestHead head = RequestHead.parse(c.in, end);
    if (head == null) {
      answer(key, c, Reply.BAD_REQUEST, false);
      return;
    }
    Reply reply;
    try {
      reply = handler.apply(head);
    } catch (RuntimeException e) {
      LOG.debug("[{}] HTTP request {} {} failed", context, head.method(), head.path(), e);
      reply = Reply.SERVER_ERROR;
    }
    answer(key, c, reply, "HEAD".equals(head.method()));
  }

  private void answer(SelectionKey key, Connection c, Reply reply, boolean headOnly)
      throws IOException {
    c.out = reply.bytes(headOnly);
    c.state = State.WRITING;
    c.deadline = System.nanoTime() + limits.responseDeadline().toNanos();
    key.interestOps(SelectionKey.OP_WRITE);
    write(key, c);
  }

  private void write(SelectionKey key, Connection c) throws IOException {
    c.channel.write(c.out);
    if (c.out.hasRemaining()) {
      return;
    }
    c.out = null;
    c.channel.shutdownOutput();
    c.state = State.LINGERING;
    c.deadline = System.nanoTime() + LINGER_NANOS;
    key.interestOps(SelectionKey.OP_READ);
  }

  private void closeExpired(long now) {
    for (SelectionKey key : selector.keys()) {
      if (key.attachment() instanceof Connection c && now - c.deadline >= 0) {
        closeQuietly(key);
      }
    }
  }

  private void closeQuietly(SelectionKey key) {
    key.cancel();
    if (key.attachment() instanceof Connection c) {
      key.attach(null);
      open--;
      closeQuietly(c.channel);
    }
  }

  private static void closeQuietly(AutoCloseable closeable) {
    try {
      closeable.close();
    } catch (Exception e) {
      // nothing left to do
    }
  }

  /** Stops serving and closes every connection and the listening socket. Idempotent. */
  @Override
  public void close() {
    closing = true;
    selector.wakeup();
    if (Thread.currentThread() != thread) {
      try {
        thread.join(TimeUnit.SECONDS.toMillis(5));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
