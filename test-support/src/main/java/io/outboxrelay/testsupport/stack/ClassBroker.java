package io.outboxrelay.testsupport.stack;

/**
 * A Kafka broker that one test class owns and whose tests may stop it: started on first use, and
 * started again when an earlier test left it stopped. The tests do not need a fresh broker (each
 * has its own topics), and a broker start costs seconds. The class closes it once
 * ({@code @AfterAll}).
 *
 * <p>Thread-safe.
 */
public final class ClassBroker implements AutoCloseable {

  private KafkaBroker broker;

  /**
   * The running broker, started now if it is not running.
   *
   * @return the broker
   * @throws LocalStackException if it fails to start
   */
  public synchronized KafkaBroker started() {
    if (broker == null) {
      broker = KafkaBroker.builder().build();
    }
    return broker.start();
  }

  /** Stops and deletes the broker, if one was started. Idempotent. */
  @Override
  public synchronized void close() {
    if (broker != null) {
      broker.close();
      broker = null;
    }
  }
}
