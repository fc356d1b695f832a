package io.outboxrelay.relay.source.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.debezium.connector.base.ChangeEventQueue;
import io.debezium.connector.mariadb.MariaDbConnectorTask;
import io.debezium.connector.mysql.MySqlConnectorTask;
import io.debezium.pipeline.DataChangeEvent;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

class QueueTapTest {

  private static ChangeEventQueue<DataChangeEvent> queue(int maxQueueSize, Duration pollInterval) {
    return new ChangeEventQueue.Builder<DataChangeEvent>()
        .pollInterval(pollInterval)
        .maxBatchSize(100)
        .maxQueueSize(maxQueueSize)
        .loggingContextSupplier(() -> null)
        .build();
  }

  private static DataChangeEvent event(long n) {
    return new DataChangeEvent(new SourceRecord(Map.of(), Map.of("n", n), "t", null, null));
  }

  private static List<Object> positions(List<DataChangeEvent> events) {
    return events.stream().map(e -> (Object) e.getRecord().sourceOffset().get("n")).toList();
  }

  @Test
  void findsTheDebeziumInternalsItNeedsInThePinnedVersion() throws Exception {
    // Guards the reflection in QueueTap: a Debezium upgrade that renames these fails here.
    assertThat(MariaDbConnectorTask.class.getDeclaredField("queue").getType())
        .isEqualTo(ChangeEventQueue.class);
    assertThat(MySqlConnectorTask.class.getDeclaredField("queue").getType())
        .isEqualTo(ChangeEventQueue.class);
    for (String field : List.of("queue", "lock", "isNotFull", "producerException")) {
      assertThat(ChangeEventQueue.class.getDeclaredField(field)).isNotNull();
    }
  }

  @Test
  void isFullWhileTheReaderWouldWaitForRoom() throws Exception {
    ChangeEventQueue<DataChangeEvent> q = queue(2, Duration.ofSeconds(10));
    QueueTap tap = QueueTap.install(q);
    q.enqueue(event(1));
    assertThat(tap.isFull()).isFalse();
    q.enqueue(event(2));
    assertThat(tap.isFull()).isTrue();
    tap.take(1, Duration.ofSeconds(1));
    assertThat(tap.isFull()).isFalse();
  }

  @Test
  void takesWhatWasQueuedInOrderUpToTheLimit() throws Exception {
    ChangeEventQueue<DataChangeEvent> q = queue(100, Duration.ofSeconds(10));
    for (long n = 1; n <= 5; n++) {
      q.enqueue(event(n));
    }
    QueueTap tap = QueueTap.install(q);

    assertThat(positions(tap.take(2, Duration.ofSeconds(5)))).containsExactly(1L, 2L);
    assertThat(positions(tap.take(10, Duration.ofSeconds(5)))).containsExactly(3L, 4L, 5L);
  }

  @Test
  void wakesUpWhenAnEventIsQueuedWhileItWaits() throws Exception {
    ChangeEventQueue<DataChangeEvent> q = queue(100, Duration.ofSeconds(10));
    QueueTap tap = QueueTap.install(q);
    CompletableFuture<List<DataChangeEvent>> taken =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return tap.take(10, Duration.ofSeconds(30));
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    await()
        .during(100, TimeUnit.MILLISECONDS)
        .atMost(2, TimeUnit.SECONDS)
        .until(() -> !taken.isDone());

    q.enqueue(event(7));

    // Well before the 30 s wait and Debezium's 10 s poll interval.
    assertThat(positions(taken.get(5, TimeUnit.SECONDS))).containsExactly(7L);
  }

  @Test
  void returnsNothingWhenNothingArrives() throws Exception {
    QueueTap tap = QueueTap.install(queue(100, Duration.ofSeconds(10)));

    assertThat(tap.take(10, Duration.ofMillis(50))).isEmpty();
  }

  @Test
  void releasesABinlogReaderBlockedOnAFullQueue() throws Exception {
    ChangeEventQueue<DataChangeEvent> q = queue(2, Duration.ofSeconds(30));
    q.enqueue(event(1));
    q.enqueue(event(2));
    QueueTap tap = QueueTap.install(q);
    CompletableFuture<Void> blocked =
        CompletableFuture.runAsync(
            () -> {
              try {
                q.enqueue(event(3));
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    await()
        .during(100, TimeUnit.MILLISECONDS)
        .atMost(2, TimeUnit.SECONDS)
        .until(() -> !blocked.isDone());

    assertThat(positions(tap.take(10, Duration.ofSeconds(1)))).containsExactly(1L, 2L);

    blocked.get(5, TimeUnit.SECONDS); // long before Debezium's 30 s backpressure re-check
    assertThat(positions(tap.take(10, Duration.ofSeconds(1)))).containsExactly(3L);
  }

  @Test
  void rethrowsTheBinlogReadersFailure() throws Exception {
    ChangeEventQueue<DataChangeEvent> q = queue(100, Duration.ofSeconds(10));
    QueueTap tap = QueueTap.install(q);
    q.producerException(new IllegalStateException("binlog connection lost"));

    assertThatThrownBy(() -> tap.take(10, Duration.ofMillis(50)))
        .hasMessage("binlog connection lost");
  }
}
