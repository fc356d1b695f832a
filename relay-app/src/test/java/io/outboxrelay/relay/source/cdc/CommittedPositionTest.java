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
}
