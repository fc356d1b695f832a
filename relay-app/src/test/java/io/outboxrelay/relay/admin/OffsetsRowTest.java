package io.outboxrelay.relay.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OffsetsRowTest {

  private static final String KEY = "[\"orders-relay\",{\"server\":\"orders-relay\"}]";

  @Test
  void readsWhatTheMariaDbConnectorStores() throws Exception {
    String value =
        "{\"transaction_id\":null,\"ts_sec\":1738317600,\"file\":\"mariadb-bin.000002\","
            + "\"pos\":1234,\"gtids\":\"0-1-55\",\"event\":2,\"row\":1,\"server_id\":1}";
    OffsetsRow p =
        new OffsetsRow(
            "r1", KEY, OffsetsRow.parseOffset(value), Instant.parse("2025-01-31T10:00:01Z"), 7);
    assertThat(p.file()).isEqualTo("mariadb-bin.000002");
    assertThat(p.pos()).isEqualTo(1234);
    assertThat(p.gtids()).isEqualTo("0-1-55");
    assertThat(p.eventTime()).isEqualTo(Instant.parse("2025-01-31T10:00:00Z"));
    assertThat(p.eventsToSkip()).isEqualTo(2);
    assertThat(p.rowsToSkip()).isEqualTo(1);
    assertThat(p.position().toString()).isEqualTo("mariadb-bin.000002:1234 (GTID 0-1-55)");
  }

  @Test
  void writesAPositionWithNothingToSkipAfterIt() throws Exception {
    String value =
        OffsetsRow.offsetAt(
            new BinlogServer.Position("mariadb-bin.000009", 342, "0-1-901"), 1, 1738317700);
    assertThat(value)
        .isEqualTo(
            "{\"ts_sec\":1738317700,\"file\":\"mariadb-bin.000009\",\"pos\":342,"
                + "\"gtids\":\"0-1-901\",\"server_id\":1}");
    Map<String, Object> back = OffsetsRow.parseOffset(value);
    assertThat(back).doesNotContainKeys("event", "row", "snapshot");
  }

  @Test
  void countsTheBinlogBytesBetweenTwoPositions() {
    List<BinlogServer.BinlogFile> files =
        List.of(
            new BinlogServer.BinlogFile("b.000003", 1000),
            new BinlogServer.BinlogFile("b.000004", 500),
            new BinlogServer.BinlogFile("b.000005", 300));
    BinlogServer.Position current = new BinlogServer.Position("b.000005", 300, null);
    assertThat(BinlogServer.bytesBetween(files, pos("b.000005", 100), current)).isEqualTo(200);
    assertThat(BinlogServer.bytesBetween(files, pos("b.000003", 900), current))
        .isEqualTo(100 + 500 + 300);
    assertThat(BinlogServer.bytesBetween(files, pos("b.000002", 4), current)).isEqualTo(-1);
  }

  private static BinlogServer.Position pos(String file, long pos) {
    return new BinlogServer.Position(file, pos, null);
  }
}
