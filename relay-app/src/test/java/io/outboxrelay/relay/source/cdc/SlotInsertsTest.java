package io.outboxrelay.relay.source.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * {@link SlotInserts.Decoder} on {@code pgoutput} protocol 1 messages as PostgreSQL writes them:
 * which outbox inserts a hand-off to polling leaves {@code PENDING}.
 */
class SlotInsertsTest {

  private static final int OUTBOX = 16384;
  private static final int OTHER = 16400;

  @Test
  void keepsTheInsertsOfTransactionsCommittingAtOrAfterThePosition() throws IOException {
    SlotInserts.Decoder d = new SlotInserts.Decoder("outbox_events", "id", 1000, -1, -1);
    d.accept(10, relation(OUTBOX, "outbox_events", "id", "event_id"));
    d.accept(20, begin(999, 7)); // commit record before the position: published
    d.accept(21, insert(OUTBOX, "1", "a"));
    d.accept(30, begin(1000, 8)); // at the position: not published
    d.accept(31, insert(OUTBOX, "2", "b"));
    d.accept(32, commit());
    d.accept(40, begin(2000, 9));
    d.accept(41, insert(OUTBOX, "3", "c"));
    d.accept(42, insert(OUTBOX, "4", null));
    assertThat(d.ids()).containsExactlyInAnyOrder(2L, 3L, 4L);
    assertThat(d.transactions()).isEqualTo(2);
  }

  @Test
  void skipsWhatThePositionsOwnTransactionPublishedUpToLsnProc() throws IOException {
    SlotInserts.Decoder d = new SlotInserts.Decoder("outbox_events", "id", 1000, 8, 31);
    d.accept(10, relation(OUTBOX, "outbox_events", "id", "event_id"));
    d.accept(30, begin(1500, 8));
    d.accept(31, insert(OUTBOX, "2", "b"));
    d.accept(33, insert(OUTBOX, "5", "e"));
    d.accept(40, begin(1600, 9));
    d.accept(29, insert(OUTBOX, "6", "f")); // another transaction: its LSN says nothing
    assertThat(d.ids()).containsExactlyInAnyOrder(5L, 6L);
  }

  @Test
  void readsTheSequenceColumnByNameAndIgnoresOtherTables() throws IOException {
    SlotInserts.Decoder d = new SlotInserts.Decoder("outbox_events", "relay_seq", 0, -1, -1);
    d.accept(10, relation(OUTBOX, "outbox_events", "event_id", "relay_seq"));
    d.accept(11, relation(OTHER, "orders", "relay_seq", "x"));
    d.accept(20, begin(5, 1));
    d.accept(21, insert(OUTBOX, "e-1", "41"));
    d.accept(22, insert(OTHER, "99", "x"));
    assertThat(d.ids()).containsExactly(41L);
  }

  private static byte[] begin(long finalLsn, int xid) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeByte('B');
    out.writeLong(finalLsn);
    out.writeLong(0); // commit time
    out.writeInt(xid);
    return bytes.toByteArray();
  }

  private static byte[] commit() throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeByte('C');
    out.writeByte(0);
    out.writeLong(1);
    out.writeLong(2);
    out.writeLong(3);
    return bytes.toByteArray();
  }

  private static byte[] relation(int id, String name, String... columns) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeByte('R');
    out.writeInt(id);
    cstring(out, "public");
    cstring(out, name);
    out.writeByte('d');
    out.writeShort(columns.length);
    for (String c : columns) {
      out.writeByte(0);
      cstring(out, c);
      out.writeInt(20); // int8
      out.writeInt(-1);
    }
    return bytes.toByteArray();
  }

  /** An insert of a row of two columns, text values or null. */
  private static byte[] insert(int relation, String first, String second) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeByte('I');
    out.writeInt(relation);
    out.writeByte('N');
    out.writeShort(2);
    for (String v : new String[] {first, second}) {
      if (v == null) {
        out.writeByte('n');
      } else {
        byte[] b = v.getBytes(StandardCharsets.UTF_8);
        out.writeByte('t');
        out.writeInt(b.length);
        out.write(b);
      }
    }
    return bytes.toByteArray();
  }

  private static void cstring(DataOutputStream out, String s) throws IOException {
    out.write(s.getBytes(StandardCharsets.UTF_8));
    out.writeByte(0);
  }
}
