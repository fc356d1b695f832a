package io.outboxrelay.relay.metrics;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;

/**
 * Tells the operator about the outages of one dependency (a database, a broker): one WARN when an
 * outage is first reported, saying what is unreachable, since when and that the relay is retrying;
 * the WARN again at most every {@code repeat} while it lasts; one INFO with its length when it
 * ends. Reasons are short texts, never stack traces: an expected outage is not a bug.
 *
 * <p>Several observers may report one dependency, each under its own cause (in CDC mode the binlog
 * connection and the lease renewals both see the source database): the outage starts with the first
 * cause reported down and ends when every cause reported down is up again or {@linkplain #clear
 * cleared}, so the operator reads one story whichever observer saw it first or last.
 *
 * <p>The caller decides what counts as an outage (and any grace period); this class only keeps the
 * state and the pace of the messages. Thread-safe.
 */
public final class OutageLog {

  /** How often the WARN is repeated while an outage lasts. */
  public static final Duration REPEAT = Duration.ofSeconds(30);

  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS", Locale.ROOT);

  private final Logger log;
  private final String context;
  private final String what;
  private final String retrying;
  private final Duration repeat;
  private final Clock clock;
  private final Set<String> causesDown = new LinkedHashSet<>();
  private Instant since;
  private Instant lastWarned;

  /**
   * Creates the log of one dependency.
   *
   * @param log where to log
   * @param context the log prefix, e.g. {@code relay mode=cdc name=outbox-relay}
   * @param what what becomes unreachable, e.g. {@code source database mariadb db:3306/app}
   * @param retrying what the relay does meanwhile, e.g. {@code reconnecting every 3 s}
   * @param repeat the least time between two WARNs of one outage
   * @param clock the wall clock
   */
  public OutageLog(
      Logger log, String context, String what, String retrying, Duration repeat, Clock clock) {
    this.log = log;
    this.context = context;
    this.what = what;
    this.retrying = retrying;
    this.repeat = repeat;
    this.clock = clock;
  }

  /**
   * Reports the dependency unreachable. The first call of an outage logs the WARN; later calls
   * repeat it once {@code repeat} has passed since the last one.
   *
   * @param from when it became unreachable, as well as the caller knows; the first call's value is
   *     kept for the outage
   * @param reason why the caller thinks so, a short text without a stack trace
   */
  public void down(Instant from, String reason) {
    down("", from, reason);
  }

  /**
   * Reports the dependency unreachable, as one observer sees it. Starts the outage (with its WARN)
   * if none is being reported, else repeats the WARN once {@code repeat} has passed since the last.
   *
   * @param cause the observer, e.g. {@code binlog}; the outage lasts while any cause is down
   * @param from when it became unreachable, as well as the caller knows
   * @param reason why the caller thinks so, a short text without a stack trace
   */
  public synchronized void down(String cause, Instant from, String reason) {
    causesDown.add(cause);
    Instant now = clock.instant();
    if (since == null) {
      since = from.isAfter(now) ? now : from;
      lastWarned = now;
      log.warn(
          "[{}] {} unreachable since {}: {}; {}", context, what, format(since), reason, retrying);
      return;
    }
    if (Duration.between(lastWarned, now).compareTo(repeat) >= 0) {
      lastWarned = now;
      log.warn(
          "[{}] {} still unreachable, for {} s now (since {}): {}; {}",
          context,
          what,
          Duration.between(since, now).toSeconds(),
          format(since),
          reason,
          retrying);
    }
  }

  /**
   * Reports the dependency reachable again; ends a reported outage with one INFO.
   *
   * @param resumed what resumes now, e.g. {@code publishing resumes}
   * @return how long the outage lasted, or empty if none was reported
   */
  public Optional<Duration> up(String resumed) {
    return up("", resumed);
  }

  /**
   * Reports the dependency reachable again, as one observer sees it. The outage ends, with one
   * INFO, when no cause is down any more.
   *
   * @param cause the observer that reported it down
   * @param resumed what resumes now, e.g. {@code publishing resumes}
   * @return how long the outage lasted, or empty if it did not end now (none was reported, or
   *     another cause is still down)
   */
  public synchronized Optional<Duration> up(String cause, String resumed) {
    causesDown.remove(cause);
    if (since == null || !causesDown.isEmpty()) {
      return Optional.empty();
    }
    Duration length = Duration.between(since, clock.instant());
    log.info(
        "[{}] {} reachable again after an outage of {} s (since {}); {}",
        context,
        what,
        String.format(Locale.ROOT, "%.1f", length.toMillis() / 1000.0),
        format(since),
        resumed);
    since = null;
    lastWarned = null;
    return Optional.of(length);
  }

  /**
   * Forgets what one observer reported, without ending the outage: for an observer that stops
   * watching (a binlog reader closed when its term ends) while another still sees the dependency.
   * If that was the last cause down, the next {@link #up(String, String)} of any cause, or the next
   * {@link #down}, decides.
   *
   * @param cause the observer
   */
  public synchronized void clear(String cause) {
    causesDown.remove(cause);
  }

  /** Whether an outage is being reported. */
  public synchronized boolean isDown() {
    return since != null;
  }

  private String format(Instant instant) {
    return TIME.format(LocalDateTime.ofInstant(instant, clock.getZone()));
  }
}
