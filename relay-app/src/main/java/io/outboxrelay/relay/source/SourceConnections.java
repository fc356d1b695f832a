package io.outboxrelay.relay.source;

import io.outboxrelay.relay.RelayFailure;
import io.outboxrelay.relay.StartupCheckException;
import io.outboxrelay.relay.config.SourceConfig;
import io.outboxrelay.relay.failure.ErrorClassifier;
import io.outboxrelay.relay.failure.SqlErrors;
import io.outboxrelay.relay.metrics.OutageLog;
import io.outboxrelay.relay.metrics.RelayHealth;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens the relay's first connection to the source database and tells a configuration mistake from
 * a database that is down: a refused user or an unknown database will not fix themselves by a
 * restart, so they are startup check failures (exit 2) naming the key to change; anything else
 * (connection refused, a timeout) stays a runtime failure. A host name that does not resolve is a
 * configuration mistake to {@link #open} (the operator commands), and waited for, for a bounded
 * time, by {@link #awaitOpen} (a relay's start). Which failure is which is decided by {@link
 * SqlErrors#connectFailure}. Stateless.
 */
public final class SourceConnections {

  private static final Logger LOG = LoggerFactory.getLogger(SourceConnections.class);

  private SourceConnections() {}

  /**
   * Opens a connection as the relay's user.
   *
   * @param source where the database is
   * @return the connection
   * @throws StartupCheckException when the configuration cannot work: one line saying what to
   *     change
   * @throws SQLException when the database cannot be reached for another reason
   */
  public static Connection open(SourceConfig source) throws StartupCheckException, SQLException {
    return open(source, source.jdbcUrl());
  }

  /**
   * Opens a connection as the relay's user on which every read waits for the database at most
   * {@code socketTimeout} (the driver's {@code socketTimeout}): a statement that gets no answer for
   * that long fails and closes the connection, instead of waiting until TCP gives up on a silent
   * network path (about 15 minutes on Linux, and forever through a middlebox that keeps
   * acknowledging).
   *
   * @param source where the database is
   * @param socketTimeout the longest wait for the database
   * @return the connection
   * @throws StartupCheckException when the configuration cannot work: one line saying what to
   *     change
   * @throws SQLException when the database cannot be reached for another reason
   */
  public static Connection open(SourceConfig source, Duration socketTimeout)
      throws StartupCheckException, SQLException {
    return open(
        source,
        source.jdbcUrl() + SqlDialect.of(source.flavor()).socketTimeoutUrlParameter(socketTimeout));
  }

  private static Connection open(SourceConfig source, String url)
      throws StartupCheckException, SQLException {
    try {
      return DriverManager.getConnection(url, source.user(), source.password().reveal());
    } catch (SQLException e) {
      String problem = configurationProblem(source, e);
      if (problem != null) {
        throw new StartupCheckException(List.of(problem));
      }
      throw e;
    }
  }

  /** How often a relay waiting for its database at start tries to connect. */
  static final Duration START_RETRY = Duration.ofMillis(500);

  /**
   * Waits at start until the source database accepts a connection as the relay's user. A database
   * that refuses connections or does not answer is no configuration error: the relay waits for it
   * (readiness says so, one WARN, again every 30 s) and starts as soon as it answers, instead of
   * exiting and leaving recovery to the supervisor's restart backoff. A {@code source.host} that
   * does not resolve is waited for the same way, for at most {@code resolveTimeout} (a compose
   * service or a Kubernetes Service resolves only once it runs), readiness naming the host; then it
   * is a startup check failure. Any other configuration mistake (a refused login, an unknown
   * database, a missing grant) fails at once.
   *
   * @param source where the database is
   * @param resolveTimeout how long to wait for {@code source.host} to resolve
   * @param context the log prefix
   * @param health where readiness is reported
   * @param stopping polled between attempts: true when the relay is asked to stop
   * @return an open connection, or {@code null} when asked to stop first
   * @throws StartupCheckException when the configuration cannot work, or the host did not resolve
   *     in time
   * @throws InterruptedException when interrupted while waiting
   */
  public static Connection awaitOpen(
      SourceConfig source,
      Duration resolveTimeout,
      String context,
      RelayHealth health,
      BooleanSupplier stopping)
      throws StartupCheckException, InterruptedException {
    OutageLog outages =
        new OutageLog(
            LOG,
            context,
            "source database " + source.describe(),
            "the relay starts as soon as it accepts connections (retrying every "
                + START_RETRY.toMillis()
                + " ms)",
            OutageLog.REPEAT,
            Clock.systemUTC());
    Instant firstFailure = null;
    long unresolvedSince = 0;
    boolean unresolved = false;
    while (!stopping.getAsBoolean()) {
      try {
        Connection c =
            DriverManager.getConnection(
                source.jdbcUrl(), source.user(), source.password().reveal());
        health.up(RelayHealth.Dependency.DATABASE, RelayHealth.RESOLVING);
        health.up(RelayHealth.Dependency.DATABASE, "start");
        outages.up("starting");
        return c;
      } catch (SQLException e) {
        if (firstFailure == null) {
          firstFailure = Instant.now();
        }
        String reason;
        if (SqlErrors.connectFailure(e) == SqlErrors.ConnectFailure.UNKNOWN_HOST) {
          long now = System.nanoTime();
          if (!unresolved) {
            unresolved = true;
            unresolvedSince = now;
          }
          if (now - unresolvedSince >= resolveTimeout.toNanos()) {
            throw new StartupCheckException(List.of(unresolvedProblem(source, resolveTimeout)));
          }
          reason = "source.host '" + source.host() + "' does not resolve to an address yet";
          health.down(RelayHealth.Dependency.DATABASE, RelayHealth.RESOLVING, reason);
          reason += " (waiting up to " + resolveTimeout.toSeconds() + " s for it)";
        } else {
          String problem = configurationProblem(source, e);
          if (problem != null) {
            throw new StartupCheckException(List.of(problem));
          }
          unresolved = false;
          health.up(RelayHealth.Dependency.DATABASE, RelayHealth.RESOLVING);
          reason = ErrorClassifier.describe(e);
        }
        health.down(RelayHealth.Dependency.DATABASE, "start", reason);
        outages.down(firstFailure, reason);
        Thread.sleep(START_RETRY.toMillis());
      }
    }
    health.up(RelayHealth.Dependency.DATABASE, RelayHealth.RESOLVING);
    health.up(RelayHealth.Dependency.DATABASE, "start");
    return null;
  }

  /** The startup problem of a {@code source.host} that did not resolve within the timeout. */
  static String unresolvedProblem(SourceConfig source, Duration resolveTimeout) {
    return "source.host '"
        + source.host()
        + "' does not resolve to an address"
        + (resolveTimeout.isZero()
            ? ""
            : " (waited " + resolveTimeout.toSeconds() + " s, relay.resolve.timeout)")
        + ": check source.host (and the DNS of this host)";
  }

  /**
   * Closes a connection, if there is one, ignoring failures (it is probably broken already).
   *
   * @param connection the connection; may be null
   */
  public static void closeQuietly(Connection connection) {
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException e) {
        // already broken
      }
    }
  }

  /**
   * The failure of a source whose first connection failed for a reason that is not one of
   * configuration (the database is down or unreachable).
   *
   * @param source where the database is
   * @param e the failure
   * @return the failure that stops the relay, saying what to check
   */
  public static RelayFailure cannotConnect(SourceConfig source, SQLException e) {
    return new RelayFailure(
        "cannot connect to "
            + source.describe()
            + " as '"
            + source.user()
            + "': "
            + e.getMessage()
            + ". Check source.host, source.port, source.user and"
            + " source.password, and that the database is up",
        e);
  }

  /**
   * Says what to change when a connection failed because of the configuration.
   *
   * @param source where the database is
   * @param e the failure of a connection attempt
   * @return one line naming the keys to check, or {@code null} when the failure is not one of
   *     configuration (the database may be down or unreachable for now)
   */
  public static String configurationProblem(SourceConfig source, SQLException e) {
    String where = source.describe();
    // The server's words name the user and client host it saw; the driver's "(conn=12) " is noise.
    String said = " (" + String.valueOf(e.getMessage()).replaceFirst("^\\(conn=\\d+\\) ", "") + ")";
    return switch (SqlErrors.connectFailure(e)) {
      case UNKNOWN_HOST -> unresolvedProblem(source, Duration.ZERO);
      case LOGIN_REFUSED ->
          where
              + " refused user '"
              + source.user()
              + "' (wrong password, or no such user for this host): check source.user and"
              + " source.password"
              + said;
      case HOST_NOT_ALLOWED ->
          where
              + " does not accept connections from this host: create user '"
              + source.user()
              + "' for this host, or check source.host"
              + said;
      case NO_SUCH_DATABASE ->
          "database '"
              + source.database()
              + "' does not exist on "
              + source.host()
              + ":"
              + source.port()
              + ": check source.database"
              + said;
      case DATABASE_DENIED ->
          "user '"
              + source.user()
              + "' may not use database '"
              + source.database()
              + "': check source.database, or grant the user what config/*/relay-grants.sql grants"
              + said;
      case OTHER -> null;
    };
  }
}
