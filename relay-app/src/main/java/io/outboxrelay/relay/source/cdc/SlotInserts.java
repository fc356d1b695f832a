package io.outboxrelay.relay.source.cdc;

import io.outboxrelay.relay.config.RelayConfig;
import io.outboxrelay.relay.config.SourceConfig;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The outbox rows a stopped relay's replication slot still holds: the ids inserted by the
 * transactions the slot would stream to its next reader (those committing at or after its {@code
 * confirmed_flush_lsn}) that also commit at or after a given position, read without consuming
 * anything ({@code pg_logical_slot_peek_binary_changes}, {@code pgoutput} protocol 1, the relay's
 * publication). It is what {@code outbox-relay handoff --to polling} on PostgreSQL leaves for
 * polling, as the binlog between the position and a snapshot is on MariaDB.
 *
 * <p>A transaction counts as published when its commit record starts before {@code from}: the
 * stored position's {@code lsn_commit} is the end of the last transaction the relay processed in
 * full (its commit record), and Debezium processes transactions in commit order, so every
 * transaction whose commit starts before it was published. Of the transaction the position is in
 * ({@code txId}), the inserts up to {@code lsn_proc} were published too, as a restart would skip
 * them. Every other insert is returned. Stateless.
 */
public final class SlotInserts {

  /** The slot cannot give its changes (invalidated, SQLState 55000). */
  private static final String NOT_IN_PREREQUISITE_STATE = "55000";

  /** The slot does not exist (dropped, SQLState 42704). */
  private static final String UNDEFINED_OBJECT = "42704";

  private SlotInserts() {}

  /** What the slot gave, or why it could not. */
  public record Result(Set<Long> ids, long transactions, String unreadable) {

    /**
     * Whether the slot's changes were read.
     *
     * @return true when {@link #ids()} holds them
     */
    public boolean readable() {
      return unreadable == null;
    }
  }

  /**
   * Reads the outbox rows inserted by the transactions of the slot that commit at or after {@code
   * from}. The slot must not be in use (no relay runs).
   *
   * @param c a connection as the relay's user (with {@code REPLICATION}); its transaction is ended
   * @param config the relay configuration (slot, publication, table, sequence column)
   * @param from the LSN before which transactions were published, as a number
   * @param txId the transaction the position is in, or -1
   * @param processed the LSN of the last insert of {@code txId} that was published, or -1
   * @return the ids, or why the slot cannot give them (it was invalidated or dropped)
   * @throws SQLException when the database fails otherwise
   */
  public static Result read(Connection c, RelayConfig config, long from, long txId, long processed)
      throws SQLException {
    SourceConfig source = config.source();
    Decoder decoder = new Decoder(source.table(), source.sequenceColumn(), from, txId, processed);
    boolean autoCommit = c.getAutoCommit();
    c.setAutoCommit(false); // a cursor: the slot may hold much
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT (lsn - '0/0'::pg_lsn)::bigint, data FROM"
                + " pg_logical_slot_peek_binary_changes(?, NULL, NULL, 'proto_version', '1',"
                + " 'publication_names', ?)")) {
      ps.setFetchSize(1000);
      ps.setString(1, PostgresReplication.slotName(config.name()));
      ps.setString(2, PostgresReplication.publicationName(config.name()));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          decoder.accept(rs.getLong(1), rs.getBytes(2));
        }
      }
      c.commit();
    } catch (SQLException e) {
      c.rollback();
      if (NOT_IN_PREREQUISITE_STATE.equals(e.getSQLState())
          || UNDEFINED_OBJECT.equals(e.getSQLState())) {
        return new Result(Set.of(), 0, e.getMessage());
      }
      throw e;
    } catch (BufferUnderflowException e) {
      c.rollback();
      throw new SQLException("a pgoutput message of the slot ended early", e);
    } finally {
      c.setAutoCommit(autoCommit);
    }
    return new Result(decoder.ids(), decoder.transactions(), null);
  }

  /**
   * Reads {@code pgoutput} protocol 1 messages in the order the slot gives them and keeps the ids
   * of the outbox rows inserted after the position. Not thread-safe.
   */
  static final class Decoder {

    private final String table;
    private final String sequence;
    private final long from;
    private final long txId;
    private final long processed;
    private final Map<Integer, Integer> idColumnOf = new HashMap<>(); // relation -> column index
    private final Set<Long> ids = new HashSet<>();
    private long transactions;
    private boolean published = true;
    private boolean current; // in the transaction txId

    /**
     * A decoder.
     *
     * @param table the outbox table's name
     * @param sequence its sequence column
     * @param from the LSN before which transactions committed were published
     * @param txId the transaction the position is in, or -1
     * @param processed the LSN of the last published insert of {@code txId}, or -1
     */
    Decoder(String table, String sequence, long from, long txId, long processed) {
      this.table = table.toLowerCase(Locale.ROOT);
      this.sequence = sequence.toLowerCase(Locale.ROOT);
      this.from = from;
      this.txId = txId;
      this.processed = processed;
    }

    /**
     * Reads one message.
     *
     * @param lsn the LSN the slot gives the message (an insert's own WAL record)
     * @param data the message
     */
    void accept(long lsn, byte[] data) {
      ByteBuffer b = ByteBuffer.wrap(data);
      char type = (char) b.get();
      switch (type) {
        case 'B' -> {
          long finalLsn = b.getLong();
          b.getLong(); // commit time
          current = (b.getInt() & 0xFFFFFFFFL) == txId;
          published = Long.compareUnsigned(finalLsn, from) < 0;
          if (!published) {
            transactions++;
          }
        }
        case 'R' -> relation(b, table, sequence, idColumnOf);
        case 'I' -> {
          Integer idColumn = idColumnOf.get(b.getInt());
          boolean seen = current && lsn <= processed; // LSNs stay below 2^63
          if (idColumn != null && !published && !seen) {
            b.get(); // 'N': the new row
            Long id = column(b, idColumn);
            if (id != null) {
              ids.add(id);
            }
          }
        }
        default -> {
          // commits, types, origins, messages: nothing to read
        }
      }
    }

    Set<Long> ids() {
      return ids;
    }

    long transactions() {
      return transactions;
    }
  }

  /** A relation message: remembers where the sequence column is when it is the outbox table. */
  private static void relation(
      ByteBuffer b, String table, String sequence, Map<Integer, Integer> idColumnOf) {
    int id = b.getInt();
    cstring(b); // namespace: the publication holds the table the search path finds
    String name = cstring(b);
    b.get(); // replica identity
    int columns = b.getShort();
    idColumnOf.remove(id);
    for (int i = 0; i < columns; i++) {
      b.get(); // flags
      String column = cstring(b);
      b.getInt(); // type
      b.getInt(); // modifier
      if (name.toLowerCase(Locale.ROOT).equals(table)
          && column.toLowerCase(Locale.ROOT).equals(sequence)) {
        idColumnOf.put(id, i);
      }
    }
  }

  /** The text of column {@code index} of a tuple, as a number, or null when it is null. */
  private static Long column(ByteBuffer b, int index) {
    int columns = b.getShort();
    for (int i = 0; i < columns; i++) {
      char kind = (char) b.get();
      String value = null;
      if (kind == 't' || kind == 'b') {
        byte[] bytes = new byte[b.getInt()];
        b.get(bytes);
        value = new String(bytes, StandardCharsets.UTF_8);
      }
      if (i == index) {
        return value == null ? null : Long.valueOf(value.trim());
      }
    }
    return null;
  }

  private static String cstring(ByteBuffer b) {
    int start = b.position();
    while (b.get() != 0) {
      // to the terminating zero
    }
    return new String(b.array(), start, b.position() - start - 1, StandardCharsets.UTF_8);
  }
}
