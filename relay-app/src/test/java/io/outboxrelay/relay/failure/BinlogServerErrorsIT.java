package io.outboxrelay.relay.failure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.github.shyiko.mysql.binlog.BinaryLogClient;
import io.outboxrelay.testsupport.stack.LocalStack;
import io.outboxrelay.testsupport.stack.MariaDbServer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The binlog errors the classifier tells apart, as the real server sends them (MariaDB 10.11):
 * another reader connecting with this reader's server id, and a position the server no longer has.
 * Both come with error 1236; each must be recognised as itself and not as the other.
 */
class BinlogServerErrorsIT {

  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(BinlogServerErrorsIT.class);

  private static final long SERVER_ID = 987_654;

  private static BinaryLogClient reader(MariaDbServer server) {
    BinaryLogClient client =
        new BinaryLogClient(
            server.host(), server.port(), server.adminUser(), server.adminPassword());
    client.setServerId(SERVER_ID);
    client.setKeepAlive(false);
    return client;
  }

  @Test
  void aSecondReaderWithTheSameServerIdEndsTheFirstWithAnErrorSaidToBeTheServerIdTaken()
      throws Exception {
    MariaDbServer server = LocalStack.shared().mariaDb();
    AtomicReference<Exception> firstFailure = new AtomicReference<>();
    BinaryLogClient first = reader(server);
    first.registerLifecycleListener(
        new BinaryLogClient.AbstractLifecycleListener() {
          @Override
          public void onCommunicationFailure(BinaryLogClient client, Exception ex) {
            firstFailure.compareAndSet(null, ex);
          }
        });
    BinaryLogClient second = reader(server);
    try {
      first.connect(10_000);
      second.connect(10_000);
      await().atMost(Duration.ofSeconds(30)).until(() -> firstFailure.get() != null);
    } finally {
      second.disconnect();
      first.disconnect();
    }
    Exception error = firstFailure.get();
    LOG.info("the first reader's failure: {}", describe(error));
    assertThat(ErrorClassifier.isServerIdTaken(error)).as(describe(error)).isTrue();
    assertThat(ErrorClassifier.isBinlogPositionUnavailable(error)).as(describe(error)).isFalse();
  }

  @Test
  void aPositionTheServerNoLongerHasIsSaidToBeGoneNotTheServerIdTaken() throws Exception {
    MariaDbServer server = LocalStack.shared().mariaDb();
    AtomicReference<Exception> failure = new AtomicReference<>();
    BinaryLogClient client = reader(server);
    client.setBinlogFilename("mariadb-bin.999999");
    client.setBinlogPosition(4);
    client.registerLifecycleListener(
        new BinaryLogClient.AbstractLifecycleListener() {
          @Override
          public void onCommunicationFailure(BinaryLogClient c, Exception ex) {
            failure.compareAndSet(null, ex);
          }
        });
    try {
      client.connect(10_000);
      await().atMost(Duration.ofSeconds(30)).until(() -> failure.get() != null);
    } finally {
      client.disconnect();
    }
    Exception error = failure.get();
    LOG.info("the reader's failure: {}", describe(error));
    assertThat(ErrorClassifier.isBinlogPositionUnavailable(error)).as(describe(error)).isTrue();
    assertThat(ErrorClassifier.isServerIdTaken(error)).as(describe(error)).isFalse();
  }

  private static String describe(Throwable t) {
    StringBuilder b = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause()) {
      b.append(c.getClass().getName()).append(": ").append(c.getMessage());
      if (c instanceof com.github.shyiko.mysql.binlog.network.ServerException se) {
        b.append(" [code ")
            .append(se.getErrorCode())
            .append(", state ")
            .append(se.getSqlState())
            .append(']');
      }
      b.append(" | ");
    }
    return b.toString();
  }
}
