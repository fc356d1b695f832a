package io.outboxrelay.idempotency.kafka;

import io.outboxrelay.idempotency.IdempotentProcessor;
import io.outboxrelay.idempotency.Outcome;
import io.outboxrelay.idempotency.testing.TestDatabase;
import io.outboxrelay.testsupport.database.SimpleDataSource;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * A consumer process for the crash test. It prints {@code DB-COMMIT <id> <outcome>} after each
 * database commit; on the event named by the last argument it prints {@code HANGING <id>} right
 * after the database commit and blocks there, before the offset commit, until it is killed.
 *
 * <p>Arguments: bootstrap servers, topic, group, JDBC URL, user, password ({@code -} for none),
 * event id to hang on ({@code -} for none).
 */
public final class CrashableConsumerMain {

  private CrashableConsumerMain() {}

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    String topic = args[1];
    String group = args[2];
    SimpleDataSource dataSource =
        new SimpleDataSource(args[3], args[4], args[5].equals("-") ? null : args[5]);
    String hangOn = args[6];
    IdempotentConsumer consumer =
        IdempotentConsumer.builder()
            .kafkaProperties(
                Map.of(
                    "bootstrap.servers",
                    bootstrap,
                    "group.id",
                    group,
                    // Static membership: the restarted process takes over the killed one's
                    // partitions at once instead of waiting for its session to time out.
                    "group.instance.id",
                    group + "-member",
                    "session.timeout.ms",
                    "10000"))
            .topics(topic)
            .processor(IdempotentProcessor.builder(dataSource, group).build())
            .handler((record, connection) -> TestDatabase.applyEffect(connection, id(record), 1))
            .listener(
                new ConsumerListener() {
                  @Override
                  public void afterDatabaseCommit(
                      ConsumerRecord<byte[], byte[]> record, Outcome outcome) {
                    String id = id(record);
                    System.out.println("DB-COMMIT " + id + " " + outcome);
                    if (id.equals(hangOn) && outcome == Outcome.PROCESSED) {
                      System.out.println("HANGING " + id);
                      System.out.flush();
                      hangForever();
                    }
                  }
                })
            .build();
    Runtime.getRuntime().addShutdownHook(new Thread(consumer::close, "consumer-shutdown"));
    consumer.run();
  }

  private static String id(ConsumerRecord<byte[], byte[]> record) {
    return new String(record.headers().lastHeader("id").value(), StandardCharsets.UTF_8);
  }

  private static void hangForever() {
    try {
      new CountDownLatch(1).await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
