package io.outboxrelay.relay.source.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.relay.source.cdc.BinlogSnapshot.Position;
import org.junit.jupiter.api.Test;

/** Binlog positions compare by file sequence number, then offset; other names do not compare. */
class BinlogSnapshotTest {

  @Test
  void comparesPositionsByFileNumberThenOffset() {
    Position at = new Position("mariadb-bin.000009", 500);
    assertThat(at.atOrAfter(new Position("mariadb-bin.000009", 500))).contains(true);
    assertThat(at.atOrAfter(new Position("mariadb-bin.000009", 499))).contains(true);
    assertThat(at.atOrAfter(new Position("mariadb-bin.000009", 501))).contains(false);
    // A later file is after any offset of an earlier one, numerically (not as text).
    assertThat(at.atOrAfter(new Position("mariadb-bin.000010", 4))).contains(false);
    assertThat(
            new Position("mariadb-bin.1000000", 4)
                .atOrAfter(new Position("mariadb-bin.999999", 9000)))
        .contains(true);
    assertThat(at.atOrAfter(new Position("mariadb-bin.000008", 90_000))).contains(true);
  }

  @Test
  void doesNotCompareFilesOfAnotherBinlog() {
    Position at = new Position("mariadb-bin.000009", 500);
    assertThat(at.atOrAfter(new Position("other-bin.000001", 4))).isEmpty();
    assertThat(at.atOrAfter(new Position("mariadb-bin", 4))).isEmpty();
  }
}
