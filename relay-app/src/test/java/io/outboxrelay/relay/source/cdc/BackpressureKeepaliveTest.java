package io.outboxrelay.relay.source.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.github.shyiko.mysql.binlog.BinaryLogClient;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class BackpressureKeepaliveTest {

  private static long lastSeen(BinaryLogClient client) throws Exception {
    Field f = BinaryLogClient.class.getDeclaredField("eventLastSeen");
    f.setAccessible(true);
    return f.getLong(client);
  }

  @Test
  void marksTheClientsLastReceiptWhileTheQueueIsFullAndForAHoldAfter() throws Exception {
    // Guards the reflection: a binlog client upgrade that renames the field fails here.
    BinaryLogClient client = new BinaryLogClient("localhost", 3306, "relay", "secret");
    AtomicBoolean full = new AtomicBoolean(false);
    try (BackpressureKeepalive keepalive = BackpressureKeepalive.install(client, full::get)) {
      Thread.sleep(3 * BackpressureKeepalive.PERIOD.toMillis());
      assertThat(lastSeen(client)).as("not marked while the queue has room").isZero();

      long before = System.currentTimeMillis();
      full.set(true);
      // Marked ahead of now, so that a stall of the whole process is not taken for silence.
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> lastSeen(client) >= before + BackpressureKeepalive.SLACK.toMillis());

      full.set(false);
      long roomAt = System.currentTimeMillis();
      // The reader gets going again: still marked for a while, in case it is slow to.
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> lastSeen(client) >= roomAt + BackpressureKeepalive.SLACK.toMillis() + 1_000);
      Thread.sleep(
          BackpressureKeepalive.HOLD.toMillis() + 2 * BackpressureKeepalive.PERIOD.toMillis());
      long last = lastSeen(client);
      assertThat(last)
          .as("the marks ended with the hold")
          .isLessThanOrEqualTo(
              roomAt
                  + BackpressureKeepalive.HOLD.toMillis()
                  + BackpressureKeepalive.PERIOD.toMillis()
                  + BackpressureKeepalive.SLACK.toMillis());
      Thread.sleep(3 * BackpressureKeepalive.PERIOD.toMillis());
      assertThat(lastSeen(client)).as("left alone after the hold").isEqualTo(last);
    }
  }

  @Test
  void stopsMarkingWhenClosed() throws Exception {
    BinaryLogClient client = new BinaryLogClient("localhost", 3306, "relay", "secret");
    BackpressureKeepalive keepalive = BackpressureKeepalive.install(client, () -> true);
    await().atMost(Duration.ofSeconds(5)).until(() -> lastSeen(client) > 0);
    keepalive.close();
    Thread.sleep(2 * BackpressureKeepalive.PERIOD.toMillis());
    long last = lastSeen(client);
    Thread.sleep(3 * BackpressureKeepalive.PERIOD.toMillis());
    assertThat(lastSeen(client)).isEqualTo(last);
  }
}
