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
 *   <li>at most {@link Limits#maxConnections()} are open. A new connection is served first: to take
 *       it, the loop closes the oldest connection that has no answer to take (one still sending its
 *       request, or one lingering after its answer), so clients that connect and send nothing
 *       cannot keep an orchestrator's probes out; only when every open connection has an answer not
 *       yet taken is the new one answered 503 and closed at once rather than left waiting in the
 *       listen backlog.
 * </ul>
 *
 * <p>A failed accept (the process out of file descriptors, {@code EMFILE}) does not stop the loop:
 * it stops accepting for {@value #ACCEPT_BACKOFF_MILLIS} ms, so that a lasting shortage does not
 * spin the thread, and tries again; the connections waiting in the listen backlog are served once
 * descriptors are free. It says so in one WARN per minute at most.
 *
 * <p>The handler runs on the loop's thread and must not block. Thread-safe: {@link #close()} may be
 * called from any thread and is idempotent.
 */
final class ConnectionLoop implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ConnectionLoop.class);

  /** The largest request head read; a longer one is answered 431. */
  static final int MAX_HEAD_BYTES = 8192;

  /** How long a connection stays open after its answer, for the client to close it. */
  private static final long LINGER_NANOS = TimeUnit.SECONDS.toNanos(1);

  /** How long the loop stops accepting after an accept failed. */
  static final long ACCEPT_BACKOFF_MILLIS = 100;

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
    private final long accepted;
    private final ByteBuffer in = ByteBuffer.allocate(MAX_HEAD_BYTES);
    private ByteBuffer out;
    private State state = State.READING;
    private long deadline;

    private Connection(SocketChannel channel, long accepted, long deadline) {
      this.channel = channel;
      this.accepted = accepted;
      this.deadline = deadline;
    }
  }

  /** Seam for tests: the listening socket's accept. */
  @FunctionalInterface
  interface Acceptor {
    SocketChannel accept(ServerSocketChannel server) throws IOException;
  }

  private final ServerSocketChannel server;
  private final Selector selector;
  private final Limits limits;
  private final Function<RequestHead, Reply> handler;
  private final String context;
  private final Acceptor acceptor;
  private final Thread thread;
  private volatile boolean closing;

  // The loop thread's own.
  private SelectionKey serverKey;
  private int open;
  private final ConnectionWarnings warnings;

  /** When accepting resumes after a failed accept; meaningful while {@link #acceptPaused}. */
  private long acceptResumes;

  private boolean acceptPaused;

  private ConnectionLoop(
      ServerSocketChannel server,
      Selector selector,
      Limits limits,
      Function<RequestHead, Reply> handler,
      String context,
      Acceptor acceptor) {
    this.server = server;
    this.selector = selector;
    this.limits = limits;
    this.handler = handler;
    this.context = context;
    this.acceptor = acceptor;
    this.warnings = new ConnectionWarnings(context, limits.maxConnections(), ACCEPT_BACKOFF_MILLIS);
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
    return start(address, limits, handler, context, ServerSocketChannel::accept);
  }

  /** {@link #start(InetSocketAddress, Limits, Function, String)} with an accept of the test's. */
  static ConnectionLoop start(
      InetSocketAddress address,
      Limits limits,
      Function<RequestHead, Reply> handler,
      String context,
      Acceptor acceptor)
      throws IOException {
    ServerSocketChannel server = ServerSocketChannel.open();
    Selector selector = null;
    SelectionKey serverKey;
    try {
      server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
      server.bind(address, 64);
      server.configureBlocking(false);
      selector = Selector.open();
      serverKey = server.register(selector, SelectionKey.OP_ACCEPT);
    } catch (IOException | RuntimeException e) {
      server.close();
      if (selector != null) {
        selector.close();
      }
      throw e;
    }
    ConnectionLoop loop = new ConnectionLoop(server, selector, limits, handler, context, acceptor);
    loop.serverKey = serverKey;
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
        long now = System.nanoTime();
        closeExpired(now);
        if (acceptPaused && now - acceptResumes >= 0) {
          acceptPaused = false;
          serverKey.interestOps(SelectionKey.OP_ACCEPT);
        }
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

  /**
   * The select timeout: until the nearest deadline or the end of an accept backoff, at least 1 ms;
   * 0 (none) when idle.
   */
  private long untilNextDeadline() {
    long now = System.nanoTime();
    long nearest = acceptPaused ? Math.max(0, acceptResumes - now) : Long.MAX_VALUE;
    for (SelectionKey key : selector.keys()) {
      if (key.attachment() instanceof Connection c) {
        nearest = Math.min(nearest, Math.max(0, c.deadline - now));
      }
    }
    return nearest == Long.MAX_VALUE ? 0 : Math.max(1, TimeUnit.NANOSECONDS.toMillis(nearest) + 1);
  }

  private void ready(SelectionKey key) {
    if (key == serverKey) {
      if (key.isValid() && key.isAcceptable()) {
        accept();
      }
      return;
    }
    try {
      if (key.attachment() instanceof Connection c) {
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

  /**
   * Accepts what waits in the backlog. A failed accept (out of file descriptors) pauses accepting
   * for {@value #ACCEPT_BACKOFF_MILLIS} ms instead of ending the loop: the listening socket stays
   * open and its backlog is served once descriptors are free.
   */
  private void accept() {
    while (true) {
      SocketChannel channel;
      try {
        channel = acceptor.accept(server);
      } catch (IOException e) {
        acceptFailed(e);
        return;
      }
      if (channel == null) {
        return;
      }
      if (open >= limits.maxConnections() && !evictOldestUnanswered()) {
        refuse(channel);
        continue;
      }
      try {
        channel.configureBlocking(false);
        long now = System.nanoTime();
        channel.register(
            selector,
            SelectionKey.OP_READ,
            new Connection(channel, now, now + limits.requestDeadline().toNanos()));
        open++;
      } catch (IOException e) {
        closeQuietly(channel); // the client went away already
      }
    }
  }

  private void acceptFailed(IOException e) {
    acceptPaused = true;
    acceptResumes = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ACCEPT_BACKOFF_MILLIS);
    serverKey.interestOps(0);
    warnings.acceptFailed(e);
  }

  /**
   * Closes the oldest connection that has no answer to take, to make room for a new one: one still
   * sending its request (most likely a client that connected and sends nothing) or one lingering
   * after its answer.
   *
   * @return false when every open connection has an answer not yet taken
   */
  private boolean evictOldestUnanswered() {
    SelectionKey oldest = null;
    long oldestAccepted = 0;
    for (SelectionKey key : selector.keys()) {
      if (key.attachment() instanceof Connection c
          && c.state != State.WRITING
          && (oldest == null || c.accepted - oldestAccepted < 0)) {
        oldest = key;
        oldestAccepted = c.accepted;
      }
    }
    if (oldest == null) {
      return false;
    }
    boolean unanswered = ((Connection) oldest.attachment()).state == State.READING;
    closeQuietly(oldest);
    if (unanswered) {
      warnings.evicted();
    }
    return true;
  }

  /** Answers 503 where the socket takes it at once, and closes. */
  private void refuse(SocketChannel channel) {
    try (channel) {
      channel.configureBlocking(false);
      channel.write(Reply.TOO_MANY_CONNECTIONS.bytes(false));
    } catch (IOException e) {
      // closed either way
    }
    warnings.refused();
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
