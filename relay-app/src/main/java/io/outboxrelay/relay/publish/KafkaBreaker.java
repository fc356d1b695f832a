package io.outboxrelay.relay.publish;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether Kafka answers, for the relay as a whole: a circuit breaker in front of the work that
 * needs Kafka. It starts {@link State#WAITING waiting} for Kafka's first answer, so a relay is not
 * ready before Kafka has answered once; a polling relay {@link #open opens} it when a batch showed
 * Kafka to be down, which pauses claiming. While it is not closed, one thread asks Kafka (a
 * metadata request, see {@link Probe}) every {@code probeInterval} and closes it at the first
 * answer.
 *
 * <p>Logs one WARN when Kafka is found not to answer (what, since when, the reason), then at most
 * one every 30 seconds while that lasts, and one INFO with the outage's length when it answers
 * again. These JVM-clock times only feed log lines: no event's lease or retry time comes from here.
 *
 * <p>Thread-safe.
 */
public final class KafkaBreaker implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(KafkaBreaker.class);

  /** How often a WARN repeats while Kafka does not answer. */
  static final Duration WARN_EVERY = Duration.ofSeconds(30);

  /** How long one probe waits for Kafka's answer. */
  static final Duration PROBE_TIMEOUT = Duration.ofSeconds(5);

  /** A probe result this young is reused rather than asked again. */
  private static final Duration REUSE_ANSWER = Duration.ofSeconds(1);

  /** Asks Kafka whether it answers; implementations are thread-safe. */
  public interface Probe extends AutoCloseable {

    /**
     * Asks Kafka for its cluster metadata.
     *
     * @param timeout how long to wait for the answer
     * @return {@code null} when Kafka answered (an error Kafka sent back is an answer too), or why
     *     not, on one line
     * @throws InterruptedException when interrupted while waiting
     */
    String check(Duration timeout) throws InterruptedException;

    /** Releases the probe's client; a later {@link #check} creates a new one. */
    @Override
    void close();
  }

  /** Where the breaker is; it moves between the first three until {@link #close()}. */
  public enum State {
    /** Kafka has not answered since the relay started: the relay is not ready. */
    WAITING,
    /** Kafka answers; work flows. */
    CLOSED,
    /** Kafka stopped answering: claims pause until it answers again. */
    OPEN,
    /** Closed for good: the relay stops. */
    SHUT
  }

  private final Probe probe;
  private final String context;
  private final String target;
  private final String whileWaiting;
  private final String whileOpen;
  private final String resumes;
  private final Duration probeInterval;
  private final Clock clock;
  private final ReentrantLock probing = new ReentrantLock();

  private State state = State.WAITING;
  private Instant since;
  private Instant nextWarning;
  private boolean warned;
  private Thread prober;

  /** WARN lines logged, for tests. */
  private int warnings;

  private long closings; // how many times the breaker closed: Kafka answered after an outage

  /** The last probe made while the breaker was closed, under {@link #probing}. */
  private Instant lastProbe = Instant.MIN;

  private String lastProbeFailure;

  /**
   * Creates a breaker waiting for Kafka's first answer; nothing is asked before {@link #start()}.
   *
   * @param probe asks Kafka; closed with the breaker
   * @param context the log prefix
   * @param target what is asked, for log lines (the bootstrap servers)
   * @param whileWaiting what the relay does not do until Kafka has answered once, for the WARN
   * @param probeInterval the pause between two probes while Kafka does not answer; at least 1 ms
   * @param clock the wall clock, for log lines only
   */
  public KafkaBreaker(
      Probe probe,
      String context,
      String target,
      String whileWaiting,
      Duration probeInterval,
      Clock clock) {
    this(
        probe,
        context,
        target,
        whileWaiting,
        "claiming paused; events in flight go back to PENDING without counting an attempt",
        "claiming resumes",
        probeInterval,
        clock);
  }

  /**
   * Creates a breaker waiting for Kafka's first answer, with the relay's mode in its log lines;
   * nothing is asked before {@link #start()}.
   *
   * @param probe asks Kafka; closed with the breaker
   * @param context the log prefix
   * @param target what is asked, for log lines (the bootstrap servers)
   * @param whileWaiting what the relay does not do until Kafka has answered once, for the WARN
   * @param whileOpen what the relay does while the breaker is open, for the WARN
   * @param resumes what resumes when Kafka answers again, for the INFO
   * @param probeInterval the pause between two probes while Kafka does not answer; at least 1 ms
   * @param clock the wall clock, for log lines only
   */
  public KafkaBreaker(
      Probe probe,
      String context,
      String target,
      String whileWaiting,
      String whileOpen,
      String resumes,
      Duration probeInterval,
      Clock clock) {
    this.whileOpen = Objects.requireNonNull(whileOpen, "whileOpen");
    this.resumes = Objects.requireNonNull(resumes, "resumes");
    this.probe = Objects.requireNonNull(probe, "probe");
    this.context = Objects.requireNonNull(context, "context");
    this.target = Objects.requireNonNull(target, "target");
    this.whileWaiting = Objects.requireNonNull(whileWaiting, "whileWaiting");
    if (probeInterval.toMillis() < 1) {
      throw new IllegalArgumentException("probeInterval must be at least 1 ms: " + probeInterval);
    }
    this.probeInterval = probeInterval;
    this.clock = Objects.requireNonNull(clock, "clock");
    this.since = clock.instant();
  }

  /** Starts asking Kafka for its first answer, on a thread of its own. Idempotent. */
  public synchronized void start() {
    if (state == State.WAITING && prober == null) {
      since = clock.instant();
      startProber();
    }
  }

  /**
   * Where the breaker is.
   *
   * @return the state
   */
  public synchronized State state() {
    return state;
  }

  /**
   * Whether work that needs Kafka must wait: Kafka has not answered yet, or stopped answering.
   *
   * @return true when waiting or open
   */
  public synchronized boolean isOpen() {
    return state == State.WAITING || state == State.OPEN;
  }

  /**
   * Reports that Kafka is down. Opens a closed breaker, logs the WARN and starts probing; does
   * nothing otherwise.
   *
   * @param why what showed it, on one line (for example the error of the batch's first event)
   * @return true when this call opened the breaker
   */
  public synchronized boolean open(String why) {
    if (state != State.CLOSED) {
      return false;
    }
    state = State.OPEN;
    since = clock.instant();
    warned = true;
    warnings++;
    nextWarning = since.plus(WARN_EVERY);
    LOG.warn(
        "[{}] Kafka ({}) is unreachable since {} ({}): {}; asking Kafka again every {} ms",
        context,
        target,
        since.truncatedTo(ChronoUnit.MILLIS),
        why,
        whileOpen,
        probeInterval.toMillis());
    startProber();
    return true;
  }

  /**
   * Whether Kafka answers now: false at once while the breaker is open or waiting, otherwise one
   * metadata request (shared with concurrent callers, and reused for a second). Does not change the
   * breaker: the caller {@link #open opens} it when it concludes that Kafka is down.
   *
   * @param budget the longest this call may take; no time left means no answer
   * @return true when Kafka answered
   * @throws InterruptedException when interrupted while waiting
   */
  public boolean answers(Duration budget) throws InterruptedException {
    long deadline = System.nanoTime() + budget.toNanos();
    if (isOpen() || budget.isNegative() || budget.isZero()) {
      return false;
    }
    if (!probing.tryLock(budget.toNanos(), TimeUnit.NANOSECONDS)) {
      return false;
    }
    try {
      Instant now = clock.instant();
      if (lastProbe.isAfter(now.minus(REUSE_ANSWER))) {
        return lastProbeFailure == null;
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      String failure = probe.check(Duration.ofNanos(Math.min(left, PROBE_TIMEOUT.toNanos())));
      lastProbe = clock.instant();
      lastProbeFailure = failure;
      if (failure != null) {
        LOG.debug("[{}] Kafka ({}) did not answer: {}", context, target, failure);
      }
      return failure == null;
    } finally {
      probing.unlock();
    }
  }

  /**
   * Whether a failed send is Kafka's as a whole rather than its records': the breaker is already
   * open, or nothing of the send was acknowledged and Kafka does not answer a metadata request
   * within {@code budget} either; then the breaker opens (and tells the operator). A timeout may
   * also mean a missing topic: a Kafka that answers decides.
   *
   * @param nothingAcknowledged whether Kafka acknowledged none of the send's records
   * @param budget the longest the metadata request may take
   * @param why what showed it, for the breaker's WARN
   * @return true when Kafka is down: the records wait for it without counting attempts
   * @throws InterruptedException when interrupted while asking
   */
  public boolean isDownAfterFailedSend(boolean nothingAcknowledged, Duration budget, String why)
      throws InterruptedException {
    if (isOpen()) {
      return true;
    }
    if (!nothingAcknowledged || answers(budget)) {
      return false; // Kafka took some of it, or answers: the failure is the records' or partition's
    }
    open(why);
    return true;
  }

  /**
   * Waits until Kafka answers (the breaker is closed).
   *
   * @param keepWaiting asked about every 200 ms; waiting ends when it returns false
   * @return true when the breaker is closed, false when waiting ended otherwise
   * @throws InterruptedException when interrupted while waiting
   */
  public synchronized boolean awaitClosed(BooleanSupplier keepWaiting) throws InterruptedException {
    while (isOpen() && keepWaiting.getAsBoolean()) {
      wait(200);
    }
    return state == State.CLOSED;
  }

  /** Stops probing and releases the probe's client; waiting callers return. Idempotent. */
  @Override
  public void close() {
    Thread t;
    synchronized (this) {
      state = State.SHUT;
      t = prober;
      prober = null;
      notifyAll();
    }
    if (t != null) {
      t.interrupt();
    }
    probe.close();
  }

  /**
   * Releases the probe's client while the breaker stays closed (CDC mode needs it only to start); a
   * later probe creates a new one.
   */
  public void releaseProbe() {
    probe.close();
  }

  /** How many WARN lines the breaker has logged. */
  /**
   * How many times the breaker closed since it was created: a change tells a waiting sender that
   * Kafka answered again meanwhile, so that it counts a new stall from now rather than from before
   * the outage.
   *
   * @return the count
   */
  public synchronized long closings() {
    return closings;
  }

  synchronized int warnings() {
    return warnings;
  }

  private void startProber() {
    Thread t = new Thread(this::probeUntilAnswered, "kafka-probe");
    t.setDaemon(true);
    prober = t;
    t.start();
  }

  private void probeUntilAnswered() {
    try {
      while (true) {
        synchronized (this) {
          if (!isOpen() || prober != Thread.currentThread()) {
            return;
          }
        }
        String failure = probe.check(PROBE_TIMEOUT);
        synchronized (this) {
          if (!isOpen() || prober != Thread.currentThread()) {
            return;
          }
          if (failure == null) {
            answered();
            return;
          }
          stillDown(failure);
          wait(probeInterval.toMillis());
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // closing
    }
  }

  /** Under the lock: Kafka answered; close and wake the waiting. */
  private void answered() {
    long seconds = Math.max(0, Duration.between(since, clock.instant()).toSeconds());
    if (state == State.OPEN) {
      LOG.info(
          "[{}] Kafka ({}) answers again after {} s unreachable; {}",
          context,
          target,
          seconds,
          resumes);
    } else if (warned) {
      LOG.info("[{}] Kafka ({}) answered after {} s; starting", context, target, seconds);
    }
    state = State.CLOSED;
    prober = null;
    warned = false;
    closings++;
    notifyAll();
  }

  /** Under the lock: a probe failed; WARN the first time and then every 30 seconds. */
  private void stillDown(String failure) {
    Instant now = clock.instant();
    long seconds = Math.max(0, Duration.between(since, now).toSeconds());
    if (!warned) {
      warned = true;
      warnings++;
      nextWarning = now.plus(WARN_EVERY);
      LOG.warn(
          "[{}] Kafka ({}) has not answered since the relay started {} s ago ({}): {} until it"
              + " does; asking again every {} ms",
          context,
          target,
          seconds,
          failure,
          whileWaiting,
          probeInterval.toMillis());
    } else if (!now.isBefore(nextWarning)) {
      warnings++;
      nextWarning = now.plus(WARN_EVERY);
      LOG.warn(
          "[{}] Kafka ({}) still does not answer after {} s ({}): {}",
          context,
          target,
          seconds,
          failure,
          state == State.OPEN ? whileOpen : whileWaiting);
    }
  }
}
