package io.outboxrelay.relay.source.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CommittedPositionTest {

  private static String at(String file, long pos, int event, int row) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("ts_sec", 1_700_000_000L + pos);
    m.put("file", file);
    m.put("pos", pos);
    m.put("server_id", 1);
    if (event > 0) {
      m.put("event", event);
      m.put("row", row);
    }
    return CommittedPosition.json(m);
  }

  @Test
  void kafkasPositionWinsWhenTheDatabaseIsBehindIt() {
    String kafka = at("mariadb-bin.000002", 400, 3, 1);
    String database = at("mariadb-bin.000002", 400, 1, 1);
    assertThat(CommittedPosition.toStore(kafka, database)).contains(kafka);
    assertThat(CommittedPosition.toStore(kafka, at("mariadb-bin.000001", 9_000, 0, 0)))
        .contains(kafka);
  }

  @Test
  void kafkasPositionIsStoredWhenTheDatabaseHasNone() {
    String kafka = at("mariadb-bin.000002", 400, 0, 0);
    assertThat(CommittedPosition.toStore(kafka, null)).contains(kafka);
  }

  @Test
  void theDatabasesPositionStaysWhenItIsTheSameOrLaterInTheSameBinlog() {
    String kafka = at("mariadb-bin.000002", 400, 0, 0);
    // The same position, reached at another time.
    String same = kafka.replace("\"ts_sec\":1700000000400", "\"ts_sec\":1700000009999");
    assertThat(CommittedPosition.toStore(kafka, same)).isEmpty();
    // An at-least-once run, or an import, moved it on.
    assertThat(CommittedPosition.toStore(kafka, at("mariadb-bin.000003", 4, 0, 0))).isEmpty();
    assertThat(CommittedPosition.toStore(kafka, at("mariadb-bin.000002", 400, 2, 1))).isEmpty();
  }

  @Test
  void kafkasPositionWinsWhenThePositionsCannotBeCompared() {
    String kafka = at("mariadb-bin.000002", 400, 0, 0);
    // Another server's binlog (a failover): file names say nothing about order.
    assertThat(CommittedPosition.toStore(kafka, at("other-bin.000009", 4, 0, 0))).contains(kafka);
    String otherServer =
        at("mariadb-bin.000003", 4, 0, 0).replace("\"server_id\":1", "\"server_id\":2");
    assertThat(CommittedPosition.toStore(kafka, otherServer)).contains(kafka);
    assertThat(CommittedPosition.toStore(kafka, "not json")).contains(kafka);
  }

  @Test
  void aPendingHandOffKeepsTheDatabasesMarkerSoThatTheFirstStartPublishesWhatPollingLeft() {
    String kafka = at("mariadb-bin.000002", 400, 0, 0);
    assertThat(CommittedPosition.toStore(kafka, HandoffMarker.value("2026-12-06T05:00:00Z")))
        .isEmpty();
  }

  /** Debezium's PostgreSQL offset inside or after transaction {@code txId}. */
  private static String lsn(long lsn, Long lsnProc, Long lsnCommit, Long txId) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("lsn_proc", lsnProc);
    m.put("lsn_commit", lsnCommit);
    m.put("lsn", lsn);
    m.put("txId", txId);
    m.put("ts_usec", 1_700_000_000_000_000L + lsn);
    m.values().removeIf(java.util.Objects::isNull);
    return CommittedPosition.json(m);
  }

  /** A first start's position: the slot's consistent point, between transactions. */
  private static String consistentPoint(long lsn, String firstStart) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("lsn", lsn);
    m.put("ts_usec", 1_700_000_000_000_000L);
    m.put(CommittedPosition.FIRST_START_OF, firstStart);
    return CommittedPosition.json(m);
  }

  @Test
  void onPostgresqlKafkasPositionWinsWhenTheDatabaseIsBehindItInTheWal() {
    // The database's row lags Kafka's by the transactions committed since (a kill -9).
    String kafka = lsn(9_000, 9_000L, 8_800L, 42L);
    assertThat(CommittedPosition.toStore(kafka, lsn(5_000, 5_000L, 4_900L, 40L))).contains(kafka);
    // Inside the same transaction, a few changes behind.
    assertThat(CommittedPosition.toStore(kafka, lsn(8_900, 8_900L, 8_800L, 42L))).contains(kafka);
    // The first start's position, and Kafka's inside the first transaction after it, whose
    // changes may lie before the consistent point: no telling, so Kafka's.
    String inFirst = lsn(900, 900L, null, 7L);
    assertThat(CommittedPosition.toStore(inFirst, consistentPoint(1_000, "t0"))).contains(inFirst);
  }

  @Test
  void onPostgresqlTheDatabasesPositionStaysWhenItIsTheSameOrLaterInTheWal() {
    String kafka = lsn(9_000, 9_000L, 8_800L, 42L);
    // The same, reached at another time.
    assertThat(
            CommittedPosition.toStore(
                kafka, kafka.replace("\"ts_usec\":1700000000000009000", "\"ts_usec\":1")))
        .isEmpty();
    // position reset --to-current: the server's position, between transactions, past it all.
    String reset = "{\"lsn\":20000,\"ts_usec\":1}";
    assertThat(CommittedPosition.toStore(kafka, reset)).isEmpty();
    // An at-least-once run went on: a later transaction processed in full.
    assertThat(CommittedPosition.toStore(kafka, lsn(9_500, 9_500L, 9_400L, 43L))).isEmpty();
    // Further inside the same transaction.
    assertThat(CommittedPosition.toStore(kafka, lsn(9_100, 9_100L, 8_800L, 42L))).isEmpty();
  }

  @Test
  void onPostgresqlAFirstStartThatDidNotFinishBeginsAgainUnlessKafkaHoldsItsPosition() {
    String marker = "{\"" + PostgresFirstStart.MARKER + "\":\"2026-12-06T22:00:00Z\"}";
    // Kafka's position is from before (the relay's earlier life, e.g. before a hand-off): the
    // first start begins again, with its marker.
    assertThat(CommittedPosition.toStore(lsn(9_000, 9_000L, 8_800L, 42L), marker)).isEmpty();
    assertThat(CommittedPosition.toStore(consistentPoint(5_000, "2026-12-05T10:00:00Z"), marker))
        .isEmpty();
    // The first start committed its position to Kafka and stopped before the database's write.
    String committed = consistentPoint(5_000, "2026-12-06T22:00:00Z");
    assertThat(CommittedPosition.toStore(committed, marker)).contains(committed);
    assertThat(PostgresReplication.isPosition(committed)).isTrue();
  }
}
