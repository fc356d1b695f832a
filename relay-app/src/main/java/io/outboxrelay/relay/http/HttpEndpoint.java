package io.outboxrelay.relay.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.outboxrelay.relay.StartupCheckException;
import io.outboxrelay.relay.config.HttpConfig;
import io.outboxrelay.relay.metrics.RelayHealth;
import io.outboxrelay.relay.metrics.RelayMetrics;
import java.io.IOException;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The read-only HTTP endpoint, on the JDK's {@link HttpServer} with one daemon thread:
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
 * Any other method is 405, any other path 404. Thread-safe; {@link #close()} is idempotent.
 */
public final class HttpEndpoint implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(HttpEndpoint.class);

  /** The Prometheus text exposition format. */
  static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

  private final HttpServer server;
  private final ExecutorService executor;
  private final RelayMetrics metrics;
  private final String context;

  private HttpEndpoint(HttpServer server, RelayMetrics metrics, String context) {
    this.server = server;
    this.metrics = metrics;
    this.context = context;
    this.executor =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "relay-http");
              t.setDaemon(true);
              return t;
            });
    server.setExecutor(executor);
    server.createContext("/", this::handle);
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
    HttpServer server;
    try {
      server = HttpServer.create(new InetSocketAddress(config.host(), config.port()), 16);
    } catch (BindException e) {
      throw cannotListen(
          "http.port",
          config,
          e.getMessage(),
          "choose a free port, or an address of this machine for http.host");
    } catch (IOException e) {
      throw cannotListen("http.host", config, e.toString(), "check http.host and http.port");
    }
    HttpEndpoint endpoint = new HttpEndpoint(server, metrics, context);
    server.start();
    LOG.info(
        "[{}] serving /metrics, /health/live and /health/ready on http://{}:{}",
        context,
        config.host(),
        server.getAddress().getPort());
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

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String path = exchange.getRequestURI().getPath();
      String method = exchange.getRequestMethod();
      boolean head = "HEAD".equals(method);
      if (!"GET".equals(method) && !head) {
        exchange.getResponseHeaders().set("Allow", "GET, HEAD");
        send(exchange, 405, "text/plain; charset=utf-8", "read-only: GET only\n", false);
        return;
      }
      switch (path) {
        case "/metrics" -> send(exchange, 200, PROMETHEUS_TEXT, metrics.registry().scrape(), head);
        case "/health/live" -> live(exchange, head);
        case "/health/ready" -> ready(exchange, head);
        default ->
            send(
                exchange,
                404,
                "text/plain; charset=utf-8",
                "not found: /metrics, /health/live, /health/ready\n",
                head);
      }
    } catch (RuntimeException e) {
      LOG.debug("[{}] HTTP request failed", context, e);
    }
  }

  private void live(HttpExchange exchange, boolean head) throws IOException {
    RelayHealth health = metrics.health();
    if (health.live()) {
      send(exchange, 200, "application/json", "{\"status\":\"live\"}\n", head);
    } else {
      send(
          exchange,
          503,
          "application/json",
          "{\"status\":\"wedged\",\"reason\":\"no progress for "
              + health.secondsSinceBeat()
              + " s\"}\n",
          head);
    }
  }

  private void ready(HttpExchange exchange, boolean head) throws IOException {
    RelayHealth.Readiness r = metrics.health().readiness();
    String body =
        r.ready()
            ? "{\"status\":\"ready\"}\n"
            : "{\"status\":\"not ready\",\"reason\":\"" + r.reason() + "\"}\n";
    send(exchange, r.ready() ? 200 : 503, "application/json", body, head);
  }

  private static void send(
      HttpExchange exchange, int status, String contentType, String body, boolean head)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", contentType);
    exchange.getResponseHeaders().set("Cache-Control", "no-store");
    if (head) {
      exchange.sendResponseHeaders(status, -1);
      return;
    }
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  /**
   * The port the endpoint listens on.
   *
   * @return the port
   */
  public int port() {
    return server.getAddress().getPort();
  }

  /** Stops serving. Idempotent. */
  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
