package io.outboxrelay.relay.source;

import io.outboxrelay.relay.StartupCheckException;
import io.outboxrelay.relay.config.RelayConfig;
import io.outboxrelay.relay.metrics.RelayHealth;
import io.outboxrelay.relay.publish.KafkaBreaker;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;

/**
 * The start sequence of every source, whatever its mode: (1) wait until the source database accepts
 * a connection as the relay's user ({@link SourceConnections#awaitOpen}: a database that is down is
 * waited for, with one WARN and readiness 503; a configuration mistake is a startup check failure),
 * (2) run the mode's {@link Checks} on that connection, then close it, (3) wait until Kafka has
 * answered once ({@link KafkaBreaker#awaitClosed}); then the caller starts the mode's machinery. A
 * stop requested while waiting ends the sequence without starting anything.
 *
 * <p>Why one sequence: an operator must see both modes start the same way (the same wait for a
 * database that is not up yet, the same exit 2 listing every problem, the same readiness reasons,
 * nothing started before Kafka answers), and that holds only while one piece of code does it. The
 * modes differ only in their checks and in what they start afterwards.
 *
 * <p>Holds no state of its own: thread-safe as far as the health, the breaker and the checks it is
 * given are; each {@link #run} is one start.
 */
public final class StartSequence {

  /**
   * A mode's startup checks.
   *
   * @param <T> what the source keeps from its checks (polling: the {@link RowLayout})
   */
  @FunctionalInterface
  public interface Checks<T> {

    /**
     * Runs the checks on the connection the sequence waited for.
     *
     * @param c an open connection as the relay's user, auto-commit on as opened; the sequence
     *     closes it after the checks, the checks may change its settings and must not close it
     * @param report where warnings (logged at once) and problems (which refuse the start) go
     * @return what the source keeps; never null
     * @throws StartupCheckException when the checks found problems ({@link Report#refuse})
     * @throws SQLException when the database failed during the checks: the start then fails with
     *     {@link SourceConnections#cannotConnect}
     */
    T run(Connection c, Report report) throws StartupCheckException, SQLException;
  }

  /** What the checks tell the sequence, in the order they find it. */
  public final class Report {

    private Report() {}

    /**
     * Logs a warning at once, on the source's logger, with the relay's context prefix.
     *
     * @param warning one line saying what to change
     */
    public void warn(String warning) {
      log.warn("[{}] {}", config.logContext(), warning);
    }

    /**
     * Refuses the start when there are problems (exit code 2), every one listed; nothing when the
     * list is empty.
     *
     * @param problems one line each saying what to change; may be empty
     * @throws StartupCheckException when there are problems
     */
    public void refuse(List<String> problems) throws StartupCheckException {
      if (!problems.isEmpty()) {
        throw new StartupCheckException(problems);
      }
    }
  }

  private final RelayConfig config;
  private final RelayHealth health;
  private final KafkaBreaker kafka;
  private final Logger log;

  /**
   * Creates the sequence of one source's start.
   *
   * @param config the relay configuration
   * @param health where readiness is reported while the database is waited for
   * @param kafka whether Kafka answers, started by the caller
   * @param log the source's logger: the checks' warnings are logged on it
   */
  public StartSequence(RelayConfig config, RelayHealth health, KafkaBreaker kafka, Logger log) {
    this.config = config;
    this.health = health;
    this.kafka = kafka;
    this.log = log;
  }

  /**
   * Runs the sequence.
   *
   * @param stopping polled while waiting: true once the source is asked to stop
   * @param checks the mode's checks
   * @param <T> what the source keeps from its checks
   * @return what the checks returned, once the database answered, the checks passed and Kafka
   *     answered; empty when asked to stop while waiting for the database or for Kafka
   * @throws StartupCheckException when the configuration cannot work ({@link
   *     SourceConnections#awaitOpen}) or the checks found problems
   * @throws io.outboxrelay.relay.RelayFailure when the database failed during the checks
   * @throws InterruptedException when interrupted while waiting
   */
  public <T> Optional<T> run(BooleanSupplier stopping, Checks<T> checks)
      throws StartupCheckException, InterruptedException {
    Connection reachable =
        SourceConnections.awaitOpen(
            config.source(), config.resolveTimeout(), config.logContext(), health, stopping);
    if (reachable == null) {
      return Optional.empty(); // stopped while waiting
    }
    T kept;
    try (Connection c = reachable) {
      kept = Objects.requireNonNull(checks.run(c, new Report()), "what the checks keep");
    } catch (SQLException e) {
      throw SourceConnections.cannotConnect(config.source(), e);
    }
    // The mode's machinery would only wait for a Kafka that does not answer.
    if (!kafka.awaitClosed(() -> !stopping.getAsBoolean())) {
      return Optional.empty();
    }
    return Optional.of(kept);
  }
}
