package io.outboxrelay.relay.source.cdc.leader;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The {@code offset_key} under which a relay's position is stored in the offsets table: the
 * engine's name and the connector's partition as JSON, {@code ["<relay.name>",{"server":
 * "<relay.name>"}]}. Several relays of one database share the table ({@code cdc.offsets.table}),
 * each under its own key, and each reads, writes and deletes only rows of its own key. Stateless.
 */
public final class OffsetKey {

  private static final ObjectMapper JSON = new ObjectMapper();

  private OffsetKey() {}

  /**
   * The key Debezium's engine writes for a relay.
   *
   * @param relayName {@code relay.name}
   * @return e.g. {@code ["orders",{"server":"orders"}]}
   */
  public static String of(String relayName) {
    try {
      return JSON.writeValueAsString(List.of(relayName, Map.of("server", relayName)));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e); // strings always serialise
    }
  }

  /**
   * Whether a stored {@code offset_key} is the relay's: a JSON array whose first element is its
   * name (compared as parsed JSON, not as text, so a key written by another JSON writer matches).
   *
   * @param key the stored key, may be null
   * @param relayName {@code relay.name}
   * @return false for another relay's key, and for anything that is not a key Debezium writes
   */
  public static boolean belongsTo(String key, String relayName) {
    if (key == null) {
      return false;
    }
    try {
      JsonNode k = JSON.readTree(key);
      return k != null && k.isArray() && k.size() >= 1 && relayName.equals(k.get(0).asText());
    } catch (JsonProcessingException e) {
      return false; // not a key Debezium wrote
    }
  }

  /**
   * Deletes every row of the relay's key from the offsets table, in the caller's transaction: the
   * rows are found by a plain read and deleted by primary key, so no other relay's row is locked
   * (the key column has no index, and a {@code DELETE ... WHERE offset_key = ?} would lock the
   * whole table under REPEATABLE READ).
   *
   * @param c the connection, in a transaction
   * @param table the offsets table, as the connection resolves it
   * @param relayName {@code relay.name}
   * @return the rows deleted
   * @throws SQLException when the database fails
   */
  public static int deleteRows(Connection c, String table, String relayName) throws SQLException {
    List<String> ids = new ArrayList<>();
    try (PreparedStatement select = c.prepareStatement("SELECT id, offset_key FROM " + table);
        ResultSet rs = select.executeQuery()) {
      while (rs.next()) {
        if (belongsTo(rs.getString(2), relayName)) {
          ids.add(rs.getString(1));
        }
      }
    }
    int deleted = 0;
    try (PreparedStatement delete = c.prepareStatement("DELETE FROM " + table + " WHERE id = ?")) {
      for (String id : ids) {
        delete.setString(1, id);
        deleted += delete.executeUpdate();
      }
    }
    return deleted;
  }
}
