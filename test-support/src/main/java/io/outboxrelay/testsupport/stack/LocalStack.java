package io.outboxrelay.testsupport.stack;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One MariaDB server (binlog on, ROW, FULL) and one Kafka broker shared by all integration tests of
 * a JVM: started on first use, stopped and deleted by a shutdown hook.
 *
 * <p>Tests on the shared stack must isolate themselves: a unique database ({@link
 * MariaDbServer#createDatabase(String)}), unique topics and consumer groups. They must never stop,
 * kill or pause the shared components; fault tests build their own {@link MariaDbServer} and {@link
 * KafkaBroker}.
 *
 * <p>Thread-safe.
 */
public final class LocalStack {

  private static final Logger LOG = LoggerFactory.getLogger(LocalStack.class);
  private static LocalStack shared;

  private final MariaDbServer mariaDb;
  private final KafkaBroker kafka;

  private LocalStack(MariaDbServer mariaDb, KafkaBroker kafka) {
    this.mariaDb = mariaDb;
    this.kafka = kafka;
  }

  /**
   * Returns the JVM's shared stack, starting it on the first call (about 5 s: the broker starts
   * while MariaDB initialises).
   *
   * @return the running shared stack
   * @throws LocalStackException if a component fails to start (a later call tries again)
   */
  public static synchronized LocalStack shared() {
    if (shared == null) {
      shared = startBoth();
      Runtime.getRuntime().addShutdownHook(new Thread(shared::stopQuietly, "local-stack-shutdown"));
    }
    return shared;
  }

  /** The shared MariaDB server. Do not stop it. */
  public MariaDbServer mariaDb() {
    return mariaDb;
  }

  /** The shared Kafka broker. Do not stop it. */
  public KafkaBroker kafka() {
    return kafka;
  }

  private static LocalStack startBoth() {
    long begin = System.nanoTime();
    KafkaBroker kafka = KafkaBroker.builder().build();
    MariaDbServer mariaDb = MariaDbServer.builder().build();
    CompletableFuture<KafkaBroker> kafkaStarted = CompletableFuture.supplyAsync(kafka::start);
    try {
      mariaDb.start();
      kafkaStarted.join();
    } catch (RuntimeException e) {
      kafkaStarted.handle((broker, error) -> null).join();
      mariaDb.close();
      kafka.close();
      throw e instanceof CompletionException && e.getCause() instanceof RuntimeException cause
          ? cause
          : e;
    }
    LOG.info(
        "shared local stack ready in {} ms: MariaDB {} (port {}), Kafka {}",
        (System.nanoTime() - begin) / 1_000_000,
        mariaDb.jdbcUrl(null),
        mariaDb.port(),
        kafka.bootstrapServers());
    return new LocalStack(mariaDb, kafka);
  }

  private void stopQuietly() {
    try {
      kafka.close();
    } catch (RuntimeException e) {
      LOG.warn("shared Kafka broker did not close cleanly", e);
    }
    try {
      mariaDb.close();
    } catch (RuntimeException e) {
      LOG.warn("shared MariaDB server did not close cleanly", e);
    }
  }
}
