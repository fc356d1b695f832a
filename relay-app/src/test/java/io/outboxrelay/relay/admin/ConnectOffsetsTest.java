package io.outboxrelay.relay.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ObjectOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConnectOffsetsTest {

  @TempDir Path dir;

  private static final String OFFSET =
      "{\"transaction_id\":null,\"ts_sec\":1764870000,\"file\":\"mariadb-bin.000003\","
          + "\"pos\":4567,\"gtids\":\"0-1-42\",\"row\":1,\"server_id\":1,\"event\":2}";

  /** What Kafka's FileOffsetBackingStore writes: a serialised HashMap of key to value bytes. */
  private Path file(Map<String, String> pairs) throws Exception {
    HashMap<byte[], byte[]> raw = new HashMap<>();
    pairs.forEach((k, v) -> raw.put(utf8(k), v == null ? null : utf8(v)));
    Path f = dir.resolve("connect.offsets");
    try (OutputStream out = Files.newOutputStream(f);
        ObjectOutputStream objects = new ObjectOutputStream(out)) {
      objects.writeObject(raw);
    }
    return f;
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void readsTheConnectorsOffsetFromAFileOfKafkasFileOffsetBackingStore() throws Exception {
    Path f =
        file(
            Map.of(
                "[\"outbox-connector\",{\"server\":\"dbserver1\"}]",
                OFFSET,
                "[\"other\",{\"server\":\"x\"}]",
                "{\"file\":\"a\",\"pos\":4}"));

    ConnectOffsets.Found found = ConnectOffsets.fromFile(f, "outbox-connector");

    assertThat(found.server()).isEqualTo("dbserver1");
    assertThat(found.offset())
        .containsEntry("file", "mariadb-bin.000003")
        .containsEntry("pos", 4567)
        .containsEntry("gtids", "0-1-42")
        .containsEntry("event", 2)
        .containsEntry("row", 1);
    assertThat(found.offset().keySet())
        .containsExactly(
            "transaction_id", "ts_sec", "file", "pos", "gtids", "row", "server_id", "event");
  }

  @Test
  void namesTheConnectorsItHasWhenTheOneAskedForIsMissing() throws Exception {
    Path f = file(Map.of("[\"other\",{\"server\":\"x\"}]", OFFSET));

    assertThatThrownBy(() -> ConnectOffsets.fromFile(f, "outbox-connector"))
        .isInstanceOfSatisfying(
            AdminException.class, e -> assertThat(e.exitCode()).isEqualTo(AdminException.USAGE))
        .hasMessageContaining("holds no offset of connector 'outbox-connector'")
        .hasMessageContaining("(it has offsets of other)");
  }

  @Test
  void refusesAConnectorWithOffsetsForSeveralSourcePartitions() throws Exception {
    Path f =
        file(
            Map.of(
                "[\"c\",{\"server\":\"a\"}]", OFFSET,
                "[\"c\",{\"server\":\"b\"}]", OFFSET));

    assertThatThrownBy(() -> ConnectOffsets.fromFile(f, "c"))
        .hasMessageContaining("for 2 source partitions");
  }

  @Test
  void refusesAFileThatIsNotAnOffsetsFile() throws Exception {
    Path f = dir.resolve("not-offsets");
    Files.writeString(f, "file=mariadb-bin.000003\n");

    assertThatThrownBy(() -> ConnectOffsets.fromFile(f, "c"))
        .isInstanceOfSatisfying(
            AdminException.class, e -> assertThat(e.exitCode()).isEqualTo(AdminException.USAGE))
        .hasMessageContaining("is not an offsets file of Kafka's FileOffsetBackingStore");
    assertThatThrownBy(() -> ConnectOffsets.fromFile(dir.resolve("missing"), "c"))
        .hasMessageContaining("there is no file");
  }

  @Test
  void refusesAnOffsetTakenDuringASnapshotOrWithoutABinlogPosition() {
    Map<String, Object> snapshot = Map.of("file", "f", "pos", 4, "snapshot", true);
    Map<String, Object> done =
        Map.of("file", "f", "pos", 4, "snapshot", true, "snapshot_completed", true);
    Map<String, Object> noFile = Map.of("lsn", 4);

    assertThat(PositionImport.offsetProblem(found(snapshot))).contains("during its snapshot");
    assertThat(PositionImport.offsetProblem(found(done))).isNull();
    assertThat(PositionImport.offsetProblem(found(noFile))).contains("is not a binlog position");
  }

  @Test
  void comparesOffsetsByFilePositionGtidsAndWhatToSkip() {
    Map<String, Object> a =
        Map.of("file", "f", "pos", 4, "gtids", "0-1-2", "event", 1, "ts_sec", 9);
    Map<String, Object> sameElsewhere =
        Map.of("file", "f", "pos", 4L, "gtids", "0-1-2", "event", 1, "ts_sec", 10);
    Map<String, Object> laterRow =
        Map.of("file", "f", "pos", 4, "gtids", "0-1-2", "event", 1, "row", 1);

    assertThat(PositionImport.sameOffset(a, sameElsewhere)).isTrue();
    assertThat(PositionImport.sameOffset(a, laterRow)).isFalse();
  }

  private static ConnectOffsets.Found found(Map<String, Object> offset) {
    return new ConnectOffsets.Found("c", Map.of("server", "s"), offset, "test");
  }
}
