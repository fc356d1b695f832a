package io.outboxrelay.relay.http;

import io.outboxrelay.relay.StartupCheckException;
import io.outboxrelay.relay.config.HttpConfig;
import io.outboxrelay.relay.metrics.RelayHealth;
import io.outboxrelay.relay.metrics.RelayMetrics;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.channels.UnresolvedAddressException;
import java.nio.channels.UnsupportedAddressTypeException;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The read-only HTTP endpoint, served by one thread on non-blocking sockets:
 *
 * <ul>
 *   <li>{@code GET /metrics}: the registry in the Prometheus text format; it reads counters and
 *       cached gauges, never the database;
 *   <li>{@code GET /health/live}: 200 unless the source loops have stopped making progress (see
 *       {@link RelayHealth#live()}), else 503;
 *   <li>{@code GET /health/ready}: 200 while streaming (CDC) or claiming (polling), else 503; both
 *       answer a short JSON body such as {@code {"status":"not ready","reason":"Kafka
 *       unreachable"}}.
 * </ul>
 *
 * Any other method is 405, any other path 404. A client cannot hold the endpoint up: a request must
 * arrive within {@link #REQUEST_DEADLINE} of its connection and its answer be taken within {@link
 * #RESPONSE_DEADLINE}, and at most {@link #MAX_CONNECTIONS} connections are open at once: a new one
 * is served first, the oldest that has sent no complete request being closed to make room, so every
 * probe is answered at once however many clients stall; a failed accept (out of file descriptors)
 * pauses accepting briefly and never ends the endpoint (see {@link ConnectionLoop}). Thread-safe;
 * {@link #close()} is idempotent.
 */
public final class HttpEndpoint implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(HttpEndpoint.class);

  /** The Prometheus text exposition format. */
  static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

  /** Connections open at once; a new one closes the oldest without a complete request. */
  static final int MAX_CONNECTIONS = 32;

  /** From a connection's accept to the end of its request's head; then it is closed. */
  static final Duration REQUEST_DEADLINE = Duration.ofSeconds(5);

  /** For a client to take its answer; then the connection is closed. */
  static final Duration RESPONSE_DEADLINE = Duration.ofSeconds(10);

  private static final String JSON = "application/json";

  private final ConnectionLoop loop;

  private HttpEndpoint(ConnectionLoop loop) {
    this.loop = loop;
  }

  /**
   * Binds the endpoint and starts serving.
   *
   * @param config where to listen
   * @param metrics what to serve
   * @param context the log prefix
   * @return the running endpoint
   * @throws StartupCheckException when the address cannot be bound (in use, not local)
   */
  public static HttpEndpoint start(HttpConfig config, RelayMetrics metrics, String context)
      throws StartupCheckException {
    ConnectionLoop.Limits limits =
        new ConnectionLoop.Limits(MAX_CONNECTIONS, REQUEST_DEADLINE, RESPONSE_DEADLINE);
    HttpEndpoint endpoint;
    try {
      endpoint =
          new HttpEndpoint(
              ConnectionLoop.start(
                  new InetSocketAddress(config.host(), config.port()),
                  limits,
                  request -> answer(metrics, request),
                  context));
    } catch (BindException e) {
      throw cannotListen(
          "http.port",
          config,
          e.getMessage(),
          "choose a free port, or an address of this machine for http.host");
    } catch (IOException | UnresolvedAddressException | UnsupportedAddressTypeException e) {
      throw cannotListen("http.host", config, e.toString(), "check http.host and http.port");
    }
    LOG.info(
        "[{}] serving /metrics, /health/live and /health/ready on http://{}:{}",
        context,
        config.host(),
        endpoint.port());
    return endpoint;
  }

  /** The startup problem of a server that could not listen, under the key to change. */
  private static StartupCheckException cannotListen(
      String key, HttpConfig config, String error, String advice) {
    return new StartupCheckException(
        List.of(
            key
                + ": cannot listen on "
                + config.host()
                + ":"
                + config.port()
                + " ("
                + error
                + "): "
                + advice));
  }

  /** The answer to one request; on the endpoint's thread. */
  private static Reply answer(RelayMetrics metrics, RequestHead request) {
    if (!"GET".equals(request.method()) && !"HEAD".equals(request.method())) {
      return new Reply(405, "text/plain; charset=utf-8", "read-only: GET only\n", "GET, HEAD");
    }
    return switch (request.path()) {
      case "/metrics" -> new Reply(200, PROMETHEUS_TEXT, metrics.registry().scrape(), null);
      case "/health/live" -> live(metrics.health());
      case "/health/ready" -> ready(metrics.health());
      default -> Reply.text(404, "not found: /metrics, /health/live, /health/ready\n");
    };
  }

  private static Reply live(RelayHealth health) {
    if (health.live()) {
      return new Reply(200, JSON, "{\"status\":\"live\"}\n", null);
    }
    return new Reply(
        503,
        JSON,
        "{\"status\":\"wedged\",\"reason\":\"no progress for "
            + health.secondsSinceBeat()
            + " s\"}\n",
        null);
  }

  private static Reply ready(RelayHealth health) {
    RelayHealth.Readiness r = health.readiness();
    String body =
        r.ready()
            ? "{\"status\":\"ready\"}\n"
            : "{\"status\":\"not ready\",\"reason\":\"" + jsonText(r.reason()) + "\"}\n";
    return new Reply(r.ready() ? 200 : 503, JSON, body, null);
  }

  /** The text as the inside of a JSON string: a reason can name a host as configured. */
  static String jsonText(String text) {
    StringBuilder b = new StringBuilder(text.length());
    for (char ch : text.toCharArray()) {
      if (ch == '"' || ch == '\\') {
        b.append('\\').append(ch);
      } else if (ch < 0x20) {
        b.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int) ch));
      } else {
        b.append(ch);
      }
    }
    return b.toString();
  }

  /**
   * The port the endpoint listens on.
   *
   * @return the port
   */
  public int port() {
    return loop.port();
  }

  /** Stops serving and closes every connection. Idempotent. */
  @Override
  public void close() {
    loop.close();
  }
}
