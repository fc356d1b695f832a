package io.outboxrelay.writer;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.outboxrelay.router.ApplicationHeaders;
import io.outboxrelay.router.ColumnMapping;
import io.outboxrelay.router.EventRouter;
import io.outboxrelay.router.OutboxEvent;
import io.outboxrelay.router.OutboxHeaders;
import io.outboxrelay.router.RecordHeader;
import io.outboxrelay.router.RoutedRecord;
import io.outboxrelay.router.TopicTemplate;
import io.outboxrelay.router.TraceContext;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The outbox contract across the boundary: random events written by the real writer into a real
 * database, read back as the relay reads a row, and routed by the router, give exactly the records
 * the writer's caller asked for: the topic, the key, the relay's own headers, the application and
 * trace headers in their order, and the payload's bytes. The events are random but seeded: a
 * failure names its seed and event, and {@code -Droundtrip.seed=<seed>} runs the same events again.
 *
 * <p>Both sides use the router's one definition of the contract (column names, reserved header
 * names, the header size bound, the headers JSON, the W3C trace context), so a change to it that
 * the writer does not follow fails here. The tables keep what they are given byte for byte:
 * MariaDB's {@code JSON} columns as the project's schema declares them, and on PostgreSQL the
 * payload and headers as {@code text}, the layout the schema names for that (its default {@code
 * jsonb} rewrites the payload's white space and reorders the header members).
 */
class WriterRouterRoundTripIT {

  /** Events per database. */
  private static final int EVENTS = 600;

  private static final long SEED = Long.getLong("roundtrip.seed", System.nanoTime());

  private static final EventRouter ROUTER = EventRouter.withDefaults();

  @Test
  void whatTheWriterWritesToMariaDbTheRouterPublishesExactly() throws Exception {
    try (WriterDatabase db = WriterDatabase.mariaDb()) {
      roundTrip(db, SEED);
    }
  }

  @Test
  void whatTheWriterWritesToPostgresqlTheRouterPublishesExactly() throws Exception {
    try (WriterDatabase db = WriterDatabase.postgres()) {
      db.execute(
          "ALTER TABLE outbox_events ALTER COLUMN payload TYPE text,"
              + " ALTER COLUMN headers TYPE text");
      roundTrip(db, SEED + 1);
    }
  }

  private static void roundTrip(WriterDatabase db, long seed) throws Exception {
    Random random = new Random(seed);
    OutboxWriter writer = OutboxWriter.builder().build();
    List<RoutedRecord> expected = new ArrayList<>();
    List<String> described = new ArrayList<>();
    try (Connection c = db.connect()) {
      while (expected.size() < EVENTS) {
        int batch = 1 + random.nextInt(12);
        List<NewEvent> events = new ArrayList<>();
        for (int k = 0; k < batch; k++) {
          events.add(randomEvent(random));
        }
        TraceParent trace = random.nextInt(3) == 0 ? TraceParent.random(random) : null;
        List<String> ids;
        try (Scope scope = trace == null ? Scope.noop() : trace.context().makeCurrent()) {
          ids = writer.appendAll(c, events);
        }
        c.commit();
        for (int k = 0; k < batch; k++) {
          expected.add(expectedRecord(events.get(k), ids.get(k), trace));
          described.add(
              "event #" + expected.size() + " of seed " + seed + " (" + events.get(k) + ")");
        }
      }
    }
    List<OutboxEvent> read = readAsTheRelayDoes(db);
    assertThat(read).hasSize(expected.size());
    for (int i = 0; i < read.size(); i++) {
      RoutedRecord routed = ROUTER.route(read.get(i));
      assertThat(routed).as(described.get(i)).isEqualTo(expected.get(i));
      String traceparent = routed.header(TraceContext.TRACEPARENT);
      if (traceparent != null) {
        assertThat(TraceContext.traceparent(traceparent))
            .as("the router's W3C format, %s", described.get(i))
            .isEqualTo(traceparent);
      }
    }
  }

  /** The rows in insert order, read by the default column names as the relay's polling reads. */
  private static List<OutboxEvent> readAsTheRelayDoes(WriterDatabase db) throws SQLException {
    ColumnMapping m = ColumnMapping.DEFAULT;
    String sql =
        "SELECT "
            + String.join(
                ", ",
                ColumnMapping.DEFAULT_SEQUENCE,
                m.eventId(),
                m.aggregateType(),
                m.aggregateId(),
                m.eventType(),
                m.payload(),
                m.aggregateVersion(),
                m.headers())
            + " FROM "
            + ColumnMapping.DEFAULT_TABLE
            + " ORDER BY "
            + ColumnMapping.DEFAULT_SEQUENCE;
    List<OutboxEvent> events = new ArrayList<>();
    try (Connection c = db.connect();
        PreparedStatement ps = c.prepareStatement(sql);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        long v = rs.getLong(7);
        Long version = rs.wasNull() ? null : v;
        events.add(
            new OutboxEvent(
                rs.getLong(1),
                rs.getString(2),
                rs.getString(3),
                rs.getString(4),
                rs.getString(5),
                rs.getString(6).getBytes(StandardCharsets.UTF_8),
                null,
                version,
                rs.getString(8),
                null,
                List.of()));
      }
      c.commit();
    }
    return events;
  }

  /** What the caller of the writer asked to be published for the event. */
  private static RoutedRecord expectedRecord(NewEvent e, String id, TraceParent trace) {
    List<RecordHeader> headers = new ArrayList<>();
    headers.add(RecordHeader.utf8(OutboxHeaders.ID, id));
    headers.add(RecordHeader.utf8(OutboxHeaders.EVENT_TYPE, e.eventType()));
    headers.add(RecordHeader.utf8(OutboxHeaders.AGGREGATE_TYPE, e.aggregateType()));
    headers.add(RecordHeader.utf8(OutboxHeaders.AGGREGATE_ID, e.aggregateId()));
    if (e.aggregateVersion() != null) {
      headers.add(
          RecordHeader.utf8(OutboxHeaders.AGGREGATE_VERSION, e.aggregateVersion().toString()));
    }
    Map<String, String> application = new LinkedHashMap<>(e.headers());
    if (trace != null) {
      // The caller's header of the same name wins (OutboxWriter, "Trace context").
      application.putIfAbsent(TraceContext.TRACEPARENT, trace.traceparent());
      if (!trace.tracestate().isEmpty()) {
        application.putIfAbsent(TraceContext.TRACESTATE, trace.tracestate());
      }
    }
    application.forEach((name, value) -> headers.add(RecordHeader.utf8(name, value)));
    Object payload = e.payloadForWriting();
    byte[] value =
        payload instanceof byte[] bytes
            ? bytes
            : ((String) payload).getBytes(StandardCharsets.UTF_8);
    String topic = TopicTemplate.parse(TopicTemplate.DEFAULT).render(e.aggregateType(), "");
    return new RoutedRecord(
        topic, e.aggregateId().getBytes(StandardCharsets.UTF_8), headers, value);
  }

  private static NewEvent randomEvent(Random random) {
    NewEvent.Builder b =
        NewEvent.builder(
            aggregateType(random), text(random, 1 + random.nextInt(80)), eventType(random));
    if (random.nextBoolean()) {
      b.eventId(new UUID(random.nextLong(), random.nextLong()).toString());
    }
    if (random.nextBoolean()) {
      b.aggregateVersion(
          random.nextInt(4) == 0 ? Long.MAX_VALUE - random.nextInt(3) : 1 + random.nextInt(1000));
    }
    String json = payload(random);
    if (random.nextInt(4) == 0) {
      b.payload(json.getBytes(StandardCharsets.UTF_8));
    } else {
      b.payload(json);
    }
    int count = random.nextInt(5);
    Map<String, String> headers = new LinkedHashMap<>();
    for (int k = 0; k < count; k++) {
      String name;
      String value;
      if (random.nextInt(8) == 0) {
        String[] names = {"ID", "Event_Type", "aggregate-id", "tenant"};
        name = names[random.nextInt(names.length)];
        value = text(random, random.nextInt(20));
      } else if (random.nextInt(6) == 0) {
        name = "big-" + random.nextInt(1000);
        value = nearTheBound(random, name);
      } else {
        name = text(random, 1 + random.nextInt(24));
        value = text(random, random.nextInt(60));
      }
      if (!ApplicationHeaders.RESERVED.contains(name)) {
        headers.putIfAbsent(name, value);
      }
    }
    b.headers(headers);
    return b.build();
  }

  /**
   * A value that makes the header's name plus value within three bytes of the bound, of characters
   * of one to four bytes in UTF-8.
   */
  private static String nearTheBound(Random random, String name) {
    int target = ApplicationHeaders.MAX_ENTRY_BYTES - random.nextInt(4) - name.length();
    StringBuilder value = new StringBuilder();
    int bytes = 0;
    String[] pieces = {"a", "é", "€", "𝄞", "\"", "\\", "\n"};
    while (true) {
      String piece = pieces[random.nextInt(pieces.length)];
      int size = piece.getBytes(StandardCharsets.UTF_8).length;
      if (bytes + size > target) {
        break;
      }
      value.append(piece);
      bytes += size;
    }
    return value.append("a".repeat(target - bytes)).toString();
  }

  /** A legal aggregate type for the default topic: ASCII letters, digits, '.', '_', '-'. */
  private static String aggregateType(Random random) {
    String legal = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-";
    int length =
        random.nextInt(10) == 0
            ? EventCheck.MAX_AGGREGATE_TYPE_LENGTH - random.nextInt(3)
            : 1 + random.nextInt(30);
    StringBuilder s = new StringBuilder();
    for (int k = 0; k < length; k++) {
      s.append(legal.charAt(random.nextInt(legal.length())));
    }
    return s.toString();
  }

  private static String eventType(Random random) {
    return random.nextBoolean() ? "OrderPaid" : text(random, 1 + random.nextInt(60));
  }

  /** A JSON payload: an object of odd text, with odd white space; now and then a large one. */
  private static String payload(Random random) {
    int size = random.nextInt(20) == 0 ? 20_000 + random.nextInt(100_000) : random.nextInt(200);
    String object = ApplicationHeaders.encode(Map.of("v", text(random, size)));
    String raw = "{\"raw\":\"" + rawJsonText(random, random.nextInt(40)) + "\"}";
    return switch (random.nextInt(3)) {
      case 0 -> object;
      case 1 -> " \n\t" + raw + "\n";
      default -> "[" + object + " , " + raw + "]";
    };
  }

  /** Text a JSON string may hold unescaped: anything but quotes, backslashes and controls. */
  private static String rawJsonText(Random random, int length) {
    StringBuilder s = new StringBuilder();
    while (s.length() < length) {
      int cp = codePoint(random);
      if (cp >= 0x20 && cp != '"' && cp != '\\') {
        s.appendCodePoint(cp);
      }
    }
    return s.toString();
  }

  /**
   * Text of every kind but U+0000 (PostgreSQL's text cannot hold it, and the writer refuses it in
   * headers): ASCII with quotes, backslashes and controls, Latin, CJK, supplementary characters,
   * blanks at either end.
   */
  private static String text(Random random, int length) {
    StringBuilder s = new StringBuilder();
    while (s.length() < length) {
      s.appendCodePoint(codePoint(random));
    }
    return s.toString();
  }

  private static int codePoint(Random random) {
    return switch (random.nextInt(7)) {
      case 0 -> 1 + random.nextInt(0x7f);
      case 1 -> "\"\\/\n\t ".charAt(random.nextInt(6));
      case 2 -> 0x80 + random.nextInt(0x700);
      case 3 -> 0x4e00 + random.nextInt(0x5000);
      case 4 -> 0x10000 + random.nextInt(0x10000);
      case 5 -> 0x2028 + random.nextInt(2);
      default -> 'a' + random.nextInt(26);
    };
  }

  /** A sampled span context made current for an append, and the W3C headers it gives. */
  private record TraceParent(String traceId, String spanId, String tracestate) {

    static TraceParent random(Random random) {
      HexFormat hex = HexFormat.of();
      byte[] trace = new byte[16];
      byte[] span = new byte[8];
      random.nextBytes(trace);
      random.nextBytes(span);
      trace[0] |= 1; // never all zero
      span[0] |= 1;
      String state = random.nextBoolean() ? "" : "congo=t61rcWkgMzE";
      return new TraceParent(hex.formatHex(trace), hex.formatHex(span), state);
    }

    Context context() {
      TraceState state = TraceState.getDefault();
      if (!tracestate.isEmpty()) {
        state = TraceState.builder().put("congo", "t61rcWkgMzE").build();
      }
      return Context.root()
          .with(Span.wrap(SpanContext.create(traceId, spanId, TraceFlags.getSampled(), state)));
    }

    String traceparent() {
      return "00-" + traceId + "-" + spanId + "-01";
    }
  }
}
