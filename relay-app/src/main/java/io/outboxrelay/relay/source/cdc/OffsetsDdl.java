package io.outboxrelay.relay.source.cdc;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The offsets table as Debezium's {@code JdbcOffsetBackingStore} keeps it, for the positions the
 * relay stores itself (a first start, {@link FirstStart}; the admin commands): its DDL and the
 * MariaDB/MySQL connector's offset of a position reached outside a transaction. The key of a
 * relay's row is {@link io.outboxrelay.relay.source.cdc.leader.OffsetKey}'s. Stateless.
 */
public final class OffsetsDdl {

  private static final ObjectMapper JSON = new ObjectMapper();

  private OffsetsDdl() {}

  /**
   * The table's DDL, as in {@code config/mysql/relay-storage.sql}.
   *
   * @param table the offsets table, qualified or not
   * @return {@code CREATE TABLE IF NOT EXISTS ...}
   */
  public static String create(String table) {
    return "CREATE TABLE IF NOT EXISTS "
        + table
        + " (id VARCHAR(36) NOT NULL, offset_key VARCHAR(1255), offset_val VARCHAR(1255),"
        + " record_insert_ts TIMESTAMP NOT NULL, record_insert_seq INTEGER NOT NULL, PRIMARY KEY"
        + " (id))";
  }

  /**
   * The offset the binlog connectors store for a position reached outside a transaction: restart at
   * {@code file}/{@code pos} with {@code gtids} completed, nothing to skip after it.
   *
   * @param file the binlog file
   * @param pos the byte offset in it
   * @param gtids the GTIDs completed there, or {@code null}
   * @param serverId the source's {@code server_id}
   * @param epochSecond the database's time now
   * @return the {@code offset_val} text
   */
  public static String offsetAt(
      String file, long pos, String gtids, long serverId, long epochSecond) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("ts_sec", epochSecond);
    m.put("file", file);
    m.put("pos", pos);
    if (gtids != null && !gtids.isEmpty()) {
      m.put("gtids", gtids);
    }
    m.put("server_id", serverId);
    try {
      return JSON.writeValueAsString(m);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e); // strings and numbers always serialise
    }
  }
}
