package io.outboxrelay.relay.http;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The WARNs of the endpoint's {@link ConnectionLoop}, each at most once a minute however often its
 * cause repeats, with the count since the last one: connections closed early or refused at the
 * connection limit, and accepts that failed. Not thread-safe: the loop's thread only.
 */
final class ConnectionWarnings {

  private static final Logger LOG = LoggerFactory.getLogger(ConnectionLoop.class);

  /** How often at most each WARN is logged. */
  private static final long EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);

  private final String context;
  private final int maxConnections;
  private final long acceptBackoffMillis;
  private int refused;
  private int evicted;
  private long limitLogged = System.nanoTime() - EVERY_NANOS;
  private int acceptFailures;
  private long acceptLogged = System.nanoTime() - EVERY_NANOS;

  ConnectionWarnings(String context, int maxConnections, long acceptBackoffMillis) {
    this.context = context;
    this.maxConnections = maxConnections;
    this.acceptBackoffMillis = acceptBackoffMillis;
  }

  /** A connection without a complete request was closed to serve a newer one. */
  void evicted() {
    evicted++;
    atLimit();
  }

  /** A new connection was refused: every open one had an answer not yet taken. */
  void refused() {
    refused++;
    atLimit();
  }

  private void atLimit() {
    long now = System.nanoTime();
    if (now - limitLogged >= EVERY_NANOS) {
      LOG.warn(
          "[{}] HTTP endpoint: {} connections open, the limit: in the last minute closed {} that"
              + " had sent no complete request to serve newer ones, and refused {} while every"
              + " open one had an answer not yet taken",
          context,
          maxConnections,
          evicted,
          refused);
      refused = 0;
      evicted = 0;
      limitLogged = now;
    }
  }

  /** An accept failed (most likely the process is out of file descriptors). */
  void acceptFailed(IOException e) {
    acceptFailures++;
    long now = System.nanoTime();
    if (now - acceptLogged >= EVERY_NANOS) {
      LOG.warn(
          "[{}] HTTP endpoint: {} connection(s) could not be accepted in the last minute ({}):"
              + " still listening, retrying every {} ms; if the process is out of file"
              + " descriptors, raise its limit (ulimit -n)",
          context,
          acceptFailures,
          e.getMessage(),
          acceptBackoffMillis);
      acceptFailures = 0;
      acceptLogged = now;
    }
  }
}
