package io.outboxrelay.writer;

import io.outboxrelay.router.ApplicationHeaders;
import io.outboxrelay.router.ColumnMapping;
import io.outboxrelay.router.Dialect;
import io.outboxrelay.router.Identifiers;
import io.outboxrelay.router.OutboxColumn;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Appends events to the outbox table on the caller's connection, inside the caller's transaction:
 * they commit or roll back with the business change. The relay then publishes each row to Kafka.
 *
 * <pre>{@code
 * OutboxWriter writer = OutboxWriter.builder()
 *     .serializer(new JacksonPayloadSerializer(objectMapper))
 *     .build();                                     // once; thread-safe
 *
 * connection.setAutoCommit(false);
 * updateOrder(connection, orderId);                 // the business change
 * writer.append(connection, NewEvent.builder("order", orderId, "OrderPaid")
 *     .payload(new OrderPaid(orderId, paymentId))
 *     .aggregateVersion(3)
 *     .build());
 * connection.commit();                              // both, or neither
 * }</pre>
 *
 * <h2>What is written</h2>
 *
 * One row per event with {@code event_id} (the caller's id, or a new UUIDv7, RFC 9562: ids of one
 * JVM increase, so inserts land at the end of the unique index), {@code aggregate_type}, {@code
 * aggregate_id}, {@code event_type}, {@code payload} (a {@code String} as is, {@code byte[]} as
 * UTF-8 text, any other object through the {@link PayloadSerializer}), and, when the table has
 * those columns, {@code aggregate_version} and {@code headers}. Table and column names are
 * configurable; the table's columns are read once, on first use, to learn whether it has the two
 * optional ones. The events of one call go in as few statements as possible (one multi-row {@code
 * INSERT} for up to {@value JdbcOutboxWriter#MAX_ROWS} rows).
 *
 * <h2>The headers column</h2>
 *
 * A nullable column holding a JSON object whose members are all JSON strings, e.g. {@code
 * {"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01","tenant":"acme"}}. NULL
 * or {@code {}} means no application headers. Member names are unique and not empty, and none is
 * one of the relay's own header names: {@code id}, {@code event_type}, {@code aggregate_type},
 * {@code aggregate_id}, {@code aggregate_version} (exact, case-sensitive). Each member's name plus
 * value is at most {@value ApplicationHeaders#MAX_ENTRY_BYTES} bytes in UTF-8. The relay publishes
 * the members as Kafka headers with UTF-8 values, in the object's member order, after its own
 * headers; it treats a row that breaks these rules as poison. The writer writes the object itself
 * (ASCII, non-ASCII characters as {@code \}{@code u} escapes) and NULL for an event without
 * headers.
 *
 * <h2>Trace context</h2>
 *
 * When the OpenTelemetry API is on the classpath and a valid span is current, every event of the
 * call gets the W3C headers {@code traceparent}, and {@code tracestate} and {@code baggage} when
 * present, taken from {@code Context.current()}. A header the caller gives with one of these names
 * wins. Off with {@link Builder#traceContext(boolean)}; never written to a table without a headers
 * column.
 *
 * <h2>What is refused</h2>
 *
 * Before it writes anything, the writer checks every event of the call and refuses the call with an
 * {@link InvalidEventException} naming the event, the field and the fix when: {@code
 * aggregate_type}, {@code aggregate_id} or {@code event_type} is {@code null} or empty; a given
 * event id is empty; the version is below 1; the payload is {@code null}, {@code byte[]} that is
 * not UTF-8, an object without a serializer, or the serializer fails; a header name is {@code
 * null}, empty or reserved; a header value is {@code null}; a header's name or value is not valid
 * Unicode (an unpaired surrogate); a header is over the size bound; the event has a version or
 * headers and the table has no column for them; the aggregate type has a character no Kafka topic
 * may hold (anything but ASCII letters, digits, {@code .}, {@code _}, {@code -}) or is longer than
 * the 236 characters that fit the relay's default topic {@code outbox.event.<aggregate type>}; a
 * row is larger than the server's {@code max_allowed_packet} (MariaDB, MySQL), which would drop the
 * connection.
 *
 * <p>Implementations are thread-safe: build one writer per outbox table and share it.
 */
public interface OutboxWriter {

  /**
   * Starts building a writer for the table {@code outbox_events} with the relay's column names.
   *
   * @return a builder
   */
  static Builder builder() {
    return new Builder();
  }

  /**
   * Appends one event in the connection's current transaction. It is visible to others, and
   * published, only once the caller commits.
   *
   * @param connection the caller's connection, auto-commit off; it is neither committed nor closed
   * @param event the event; not {@code null}
   * @return the event's id (the one given, or the generated UUIDv7)
   * @throws IllegalStateException if the connection is in auto-commit mode (the event would commit
   *     apart from the business change), the configured dialect is not the database's, or the table
   *     lacks a column the writer needs; nothing is written
   * @throws InvalidEventException if the event breaks a rule above; nothing is written
   * @throws SQLException if the database fails; roll the transaction back (on PostgreSQL it is
   *     aborted anyway)
   */
  default String append(Connection connection, NewEvent event) throws SQLException {
    return appendAll(connection, List.of(Objects.requireNonNull(event, "event"))).get(0);
  }

  /**
   * Appends events in the connection's current transaction, in the list's order (their ids, and so
   * their {@code id} column where it is an identity, follow that order). All or nothing: when it
   * throws, none of the events is in the transaction.
   *
   * @param connection the caller's connection, auto-commit off; it is neither committed nor closed
   * @param events the events; not {@code null}, no element {@code null}; may be empty
   * @return the events' ids, in the list's order
   * @throws IllegalStateException as {@link #append}
   * @throws InvalidEventException if any event breaks a rule above; nothing is written
   * @throws SQLException if the database fails; roll the transaction back
   */
  List<String> appendAll(Connection connection, List<NewEvent> events) throws SQLException;

  /**
   * Checks, at application start, that the database is of the configured dialect and the outbox
   * table exists with the columns this writer needs, and remembers the table's layout for the
   * appends to come. Reads the catalog only; writes nothing and neither commits nor closes the
   * connection. The default implementation checks nothing.
   *
   * @param connection a connection to the database of the outbox table
   * @throws IllegalStateException if the configured dialect does not match the database, or the
   *     table lacks a column the writer needs; the message names the fix
   * @throws SQLException if the table cannot be read (it does not exist, or the user may not read
   *     it); the message names the DDL file
   */
  default void checkTable(Connection connection) throws SQLException {}

  /**
   * Configures an {@link OutboxWriter}. Every setting has the relay's default, which the router's
   * {@link ColumnMapping} defines. Not thread-safe.
   */
  final class Builder {

    String table = ColumnMapping.DEFAULT_TABLE;

    /** The column of each written {@link OutboxColumn}; {@code null}: never write that one. */
    final Map<OutboxColumn, String> columns = new EnumMap<>(OutboxColumn.class);

    Dialect dialect;
    PayloadSerializer serializer;
    boolean traceContext = true;

    private Builder() {
      for (OutboxColumn c : OutboxColumn.values()) {
        if (c.written()) {
          columns.put(c, ColumnMapping.DEFAULT.column(c));
        }
      }
    }

    /**
     * Sets the column that holds one of the contract's values (default its {@link
     * OutboxColumn#defaultName()}): what the typed setters such as {@link #eventIdColumn} do, for
     * every column the writer writes. An optional column is written when the table has it; {@code
     * null} never writes it, and events with a value for it are then refused.
     *
     * @param column what the column holds; one the writer writes ({@link OutboxColumn#written()})
     * @param name a plain identifier; {@code null} only for an optional column
     * @return this builder
     * @throws IllegalArgumentException if the name is not a plain identifier, or the writer does
     *     not write that column
     */
    public Builder column(OutboxColumn column, String name) {
      String setting = setting(column);
      if (!column.written()) {
        throw new IllegalArgumentException(
            "the writer does not write " + column.what() + " (" + column + ")");
      }
      columns.put(
          column,
          name == null && !column.required() ? null : Identifiers.requireColumn(name, setting));
      return this;
    }

    /** The typed setter of a column, as messages name it: {@code eventIdColumn}. */
    static String setting(OutboxColumn column) {
      return column.camelName() + "Column";
    }

    /**
     * Sets the outbox table (default {@code outbox_events}). Names are quoted in SQL, so they must
     * match the catalog's spelling (on PostgreSQL, lower case for tables created without quotes).
     *
     * @param table a plain identifier, optionally {@code schema.table}
     * @return this builder
     * @throws IllegalArgumentException if it is not a plain identifier
     */
    public Builder table(String table) {
      this.table = Identifiers.requireTable(table, "table");
      return this;
    }

    /**
     * Sets the event id column (default {@code event_id}).
     *
     * @param column a plain identifier
     * @return this builder
     * @throws IllegalArgumentException if it is not a plain identifier
     */
    public Builder eventIdColumn(String column) {
      return column(OutboxColumn.EVENT_ID, column);
    }

    /**
     * Sets the aggregate type column (default {@code aggregate_type}).
     *
     * @param column a plain identifier
     * @return this builder
     * @throws IllegalArgumentException if it is not a plain identifier
     */
    public Builder aggregateTypeColumn(String column) {
      return column(OutboxColumn.AGGREGATE_TYPE, column);
    }

    /**
     * Sets the aggregate id column (default {@code aggregate_id}).
     *
     * @param column a plain identifier
     * @return this builder
     * @throws IllegalArgumentException if it is not a plain identifier
     */
    public Builder aggregateIdColumn(String column) {
      return column(OutboxColumn.AGGREGATE_ID, column);
    }

    /**
     * Sets the event type column (default {@code event_type}).
     *
     * @param column a plain identifier
     * @return this builder
     * @throws IllegalArgumentException if it is not a plain identifier
     */
    public Builder eventTypeColumn(String column) {
      return column(OutboxColumn.EVENT_TYPE, column);
    }

    /**
     * Sets the payload column (default {@code payload}).
     *
     * @param column a plain identifier
     * @return this builder
     * @throws IllegalArgumentException if it is not a plain identifier
     */
    public Builder payloadColumn(String column) {
      return column(OutboxColumn.PAYLOAD, column);
    }

    /**
     * Sets the optional aggregate version column (default {@code aggregate_version}), written when
     * the table has it; {@code null} never writes one. Events with a version are refused when there
     * is no column for it.
     *
     * @param column a plain identifier, or {@code null}
     * @return this builder
     * @throws IllegalArgumentException if it is not a plain identifier
     */
    public Builder aggregateVersionColumn(String column) {
      return column(OutboxColumn.AGGREGATE_VERSION, column);
    }

    /**
     * Sets the optional headers column (default {@code headers}), written when the table has it;
     * {@code null} never writes one. Events with headers are refused when there is no column for
     * them; trace context is then not written.
     *
     * @param column a plain identifier, or {@code null}
     * @return this builder
     * @throws IllegalArgumentException if it is not a plain identifier
     */
    public Builder headersColumn(String column) {
      return column(OutboxColumn.HEADERS, column);
    }

    /**
     * Sets the SQL dialect. By default it is detected from the first connection's metadata.
     *
     * @param dialect the dialect; not {@code null}
     * @return this builder
     */
    public Builder dialect(Dialect dialect) {
      this.dialect = Objects.requireNonNull(dialect, "dialect");
      return this;
    }

    /**
     * Sets what turns payload objects into bytes. Without one, payloads must be given as {@code
     * String} or {@code byte[]}.
     *
     * @param serializer the serializer; not {@code null}
     * @return this builder
     */
    public Builder serializer(PayloadSerializer serializer) {
      this.serializer = Objects.requireNonNull(serializer, "serializer");
      return this;
    }

    /**
     * Whether to write the current OpenTelemetry trace context into the headers (default {@code
     * true}; without the OpenTelemetry API on the classpath there is none to write).
     *
     * @param enabled {@code false} to never write trace headers
     * @return this builder
     */
    public Builder traceContext(boolean enabled) {
      this.traceContext = enabled;
      return this;
    }

    /**
     * Builds the writer. It does not connect: the dialect and the table's columns are read on first
     * use.
     *
     * @return a thread-safe writer
     */
    public OutboxWriter build() {
      return new JdbcOutboxWriter(this, traceContext ? CurrentTrace.detect() : CurrentTrace.NONE);
    }
  }
}
