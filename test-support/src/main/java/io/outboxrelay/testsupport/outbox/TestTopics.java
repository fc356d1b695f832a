package io.outboxrelay.testsupport.outbox;

import io.outboxrelay.testsupport.stack.ConsumedRecord;
import io.outboxrelay.testsupport.stack.TopicReader;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The topics of one test: a name unique to the test, which is the relay's {@code relay.name} and,
 * through {@link RelaySettings#topicPrefix}, the prefix of every topic its relay publishes to; the
 * broker; and reading back what reached those topics, checked against a {@link Ledger}.
 *
 * <p>Immutable and thread-safe.
 */
public final class TestTopics {

  private static final Logger LOG = LoggerFactory.getLogger(TestTopics.class);
  private static final AtomicInteger TESTS = new AtomicInteger();

  private final String bootstrap;
  private final String name;

  private TestTopics(String bootstrap, String name) {
    this.bootstrap = bootstrap;
    this.name = name;
  }

  /**
   * Topics under a fresh name, {@code label-<random hex>}.
   *
   * @param bootstrap the broker
   * @param label what the test is about, e.g. {@code handoff}
   * @return the topics
   */
  public static TestTopics fresh(String bootstrap, String label) {
    return new TestTopics(bootstrap, label + "-" + Long.toHexString(System.nanoTime() & 0xfffff));
  }

  /**
   * Topics under a fresh name that tells the test method: {@code <label><n>-<method>-<hex>}, where
   * n counts the tests of the JVM and the method name is cut to {@code methodChars}.
   *
   * @param bootstrap the broker
   * @param label the suite, e.g. {@code cdc}
   * @param method the test method's name
   * @param methodChars how much of the method name to keep
   * @return the topics
   */
  public static TestTopics fresh(String bootstrap, String label, String method, int methodChars) {
    return new TestTopics(
        bootstrap,
        label
            + TESTS.incrementAndGet()
            + "-"
            + method.substring(0, Math.min(methodChars, method.length()))
            + "-"
            + Long.toHexString(System.nanoTime() & 0xfffff));
  }

  /**
   * The same name on another broker (a test that moves its relay to a broker of its own).
   *
   * @param otherBootstrap the other broker
   * @return the topics there
   */
  public TestTopics on(String otherBootstrap) {
    return new TestTopics(otherBootstrap, name);
  }

  /** The test's name: the relay's {@code relay.name}. */
  public String name() {
    return name;
  }

  /** The broker. */
  public String bootstrap() {
    return bootstrap;
  }

  /** The prefix of the test's topics. */
  public String prefix() {
    return RelaySettings.topicPrefix(name);
  }

  /** A new, empty ledger for these topics. */
  public Ledger newLedger() {
    return new Ledger(prefix());
  }

  /** A reader of the test's topics. */
  public TopicReader reader() {
    return TopicReader.forPrefix(bootstrap, prefix());
  }

  /**
   * Reads until at least {@code atLeast} records arrived or {@code timeout} passed.
   *
   * @return the records read; the caller asserts on their number
   */
  public List<ConsumedRecord> readAtLeast(int atLeast, Duration timeout) {
    return reader().readUntil(records -> records.size() >= atLeast, timeout);
  }

  /**
   * Waits (up to {@code timeout}) until every event of the ledger arrived, then reads on until the
   * topics stay quiet for 2 s (at most 60 s).
   *
   * @return every record read
   */
  public List<ConsumedRecord> readAll(Ledger ledger, Duration timeout) {
    return reader()
        .readUntilQuiet(ledger::allArrived, timeout, Duration.ofSeconds(2), Duration.ofSeconds(60));
  }

  /**
   * {@link #readAll} and the ledger's check of what was read, logged.
   *
   * @return the check's result; the caller asserts on it
   */
  public Ledger.Result check(Ledger ledger, Duration timeout) {
    Ledger.Result result = ledger.check(readAll(ledger, timeout));
    LOG.info("{}: {}", name, result.summary());
    return result;
  }

  @Override
  public String toString() {
    return "topics " + prefix() + "* on " + bootstrap;
  }
}
