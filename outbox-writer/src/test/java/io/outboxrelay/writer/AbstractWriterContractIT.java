package io.outboxrelay.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.opentelemetry.api.baggage.Baggage;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.outboxrelay.router.ApplicationHeaders;
import io.outboxrelay.router.Dialect;
import io.outboxrelay.writer.jackson.JacksonPayloadSerializer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The writer's contract: what it must do on every supported database, against the real database. A
 * subclass of about twenty lines supplies the database.
 */
abstract class AbstractWriterContractIT {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** A fresh database with the outbox table of {@code config/<dialect>/outbox-schema.sql}. */
  protected abstract WriterDatabase newDatabase();

  protected WriterDatabase db;

  @BeforeEach
  void setUp() {
    db = newDatabase();
  }

  @AfterEach
  void tearDown() {
    db.close();
  }

  record Paid(String orderId, long cents) {}

  private static NewEvent event(int n) {
    return NewEvent.builder("order", "o-" + (n % 7), "OrderPaid")
        .payload("{\"n\":" + n + "}")
        .build();
  }

  private static List<NewEvent> events(int count) {
    List<NewEvent> events = new ArrayList<>();
    for (int n = 0; n < count; n++) {
      events.add(event(n));
    }
    return events;
  }

  private static Map<String, String> parseHeaders(Object json) throws Exception {
    return json == null
        ? null
        : JSON.readValue((String) json, new TypeReference<LinkedHashMap<String, String>>() {});
  }

  private static void assertUuidV7(String id) {
    UUID uuid = UUID.fromString(id);
    assertThat(uuid.version()).as("version of %s", id).isEqualTo(7);
    assertThat(uuid.variant()).as("variant of %s", id).isEqualTo(2);
    long millis = uuid.getMostSignificantBits() >>> 16;
    assertThat(millis).isBetween(System.currentTimeMillis() - 60_000, System.currentTimeMillis());
  }

  @Test
  void writesExactlyTheRowOfACommittedEvent() throws Exception {
    OutboxWriter writer = OutboxWriter.builder().build();
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("tenant", "acme");
    headers.put("ID", "case matters: only the exact reserved names are refused");
    headers.put("note", "quote \" backslash \\ newline \n tab \t bell \u0007 é € 𝄞");
    String id;
    try (Connection c = db.connect()) {
      id =
          writer.append(
              c,
              NewEvent.builder("order", "o-1", "OrderPaid")
                  .payload("{\"orderId\":\"o-1\",\"cents\":1250}")
                  .aggregateVersion(3)
                  .headers(headers)
                  .build());
      c.commit();
    }

    assertUuidV7(id);
    Map<String, Object> row = db.row(id);
    assertThat(row).containsEntry("aggregate_type", "order");
    assertThat(row).containsEntry("aggregate_id", "o-1");
    assertThat(row).containsEntry("event_type", "OrderPaid");
    assertThat(JSON.readTree((String) row.get("payload")))
        .isEqualTo(JSON.readTree("{\"orderId\":\"o-1\",\"cents\":1250}"));
    assertThat(((Number) row.get("aggregate_version")).longValue()).isEqualTo(3);
    assertThat(parseHeaders(row.get("headers"))).isEqualTo(headers);
    assertThat(db.count("outbox_events")).isEqualTo(1);
  }

  @Test
  void writesTheHeadersInTheirOrderAndNullForNone() throws Exception {
    OutboxWriter writer = OutboxWriter.builder().build();
    String withHeaders;
    String without;
    try (Connection c = db.connect()) {
      withHeaders =
          writer.append(
              c,
              NewEvent.builder("order", "o-1", "OrderPaid")
                  .payload("{}")
                  .header("zeta", "1")
                  .header("alpha", "2")
                  .build());
      without = writer.append(c, NewEvent.of("order", "o-1", "OrderShipped", "{}"));
      c.commit();
    }

    assertThat(db.row(without).get("headers")).isNull();
    assertThat(db.row(without).get("aggregate_version")).isNull();
    Map<String, String> stored = parseHeaders(db.row(withHeaders).get("headers"));
    assertThat(stored).containsExactlyInAnyOrderEntriesOf(Map.of("zeta", "1", "alpha", "2"));
    if (db.dialect() == Dialect.MYSQL) {
      assertThat(db.row(withHeaders).get("headers")).isEqualTo("{\"zeta\":\"1\",\"alpha\":\"2\"}");
    }
  }

  @Test
  void appendsManyEventsInOrderUnderIncreasingUuidV7Ids() throws Exception {
    OutboxWriter writer = OutboxWriter.builder().build();
    List<NewEvent> events = events(100);
    List<String> ids;
    try (Connection c = db.connect()) {
      ids = writer.appendAll(c, events);
      c.commit();
    }

    assertThat(ids).hasSize(100).doesNotHaveDuplicates();
    assertThat(ids).isSorted();
    ids.forEach(AbstractWriterContractIT::assertUuidV7);
    assertThat(db.eventIdsInInsertOrder()).isEqualTo(ids);
    for (int n = 0; n < ids.size(); n++) {
      Map<String, Object> row = db.row(ids.get(n));
      assertThat(row.get("aggregate_id")).isEqualTo("o-" + (n % 7));
      assertThat(JSON.readTree((String) row.get("payload")).get("n").asInt()).isEqualTo(n);
    }
  }

  @Test
  void writesTheCallersOwnEventId() throws Exception {
    OutboxWriter writer = OutboxWriter.builder().build();
    UUID given = UUID.randomUUID();
    try (Connection c = db.connect()) {
      assertThat(
              writer.append(
                  c,
                  NewEvent.builder("order", "o-1", "OrderPaid")
                      .eventId(given)
                      .payload("{}")
                      .build()))
          .isEqualTo(given.toString());
      c.commit();
    }

    assertThat(db.row(given.toString())).containsEntry("event_type", "OrderPaid");
  }

  @Test
  void leavesNoRowWhenTheTransactionRollsBack() throws Exception {
    OutboxWriter writer = OutboxWriter.builder().build();
    try (Connection c = db.connect()) {
      writer.appendAll(c, events(10));
      c.rollback();
    }

    assertThat(db.count("outbox_events")).isZero();
  }

  @Test
  void refusesAConnectionInAutoCommitModeAndWritesNothing() throws Exception {
    OutboxWriter writer = OutboxWriter.builder().build();
    try (Connection c = db.connect()) {
      c.setAutoCommit(true);
      assertThatThrownBy(() -> writer.append(c, event(1)))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("auto-commit")
          .hasMessageContaining("connection.setAutoCommit(false)");
    }

    assertThat(db.count("outbox_events")).isZero();
  }

  /** Bad events: how to make one, the field it is refused for, and a piece of the message. */
  static Stream<Arguments> badEvents() {
    String big = "x".repeat(ApplicationHeaders.MAX_ENTRY_BYTES - 3);
    return Stream.of(
        bad("aggregate type null", b -> NewEvent.builder(null, "o", "T"), "aggregate_type", "null"),
        bad("aggregate type empty", b -> NewEvent.builder("", "o", "T"), "aggregate_type", "give"),
        bad("aggregate id null", b -> NewEvent.builder("a", null, "T"), "aggregate_id", "null"),
        bad("aggregate id empty", b -> NewEvent.builder("a", "", "T"), "aggregate_id", "empty"),
        bad("event type null", b -> NewEvent.builder("a", "o", null), "event_type", "null"),
        bad("event type empty", b -> NewEvent.builder("a", "o", ""), "event_type", "empty"),
        bad("event id empty", b -> b.eventId(""), "event_id", "empty"),
        bad("version 0", b -> b.aggregateVersion(0), "aggregate_version", "start at 1"),
        bad("version -1", b -> b.aggregateVersion(-1), "aggregate_version", "start at 1"),
        bad("payload null", b -> b.payload((String) null), "payload", "tombstone"),
        bad(
            "payload not UTF-8",
            b -> b.payload(new byte[] {'{', (byte) 0xC3, '}'}),
            "payload",
            "UTF-8"),
        bad(
            "payload object without serializer",
            b -> b.payload(new Paid("o", 1)),
            "payload",
            ".serializer("),
        bad("header name null", b -> b.header(null, "v"), "headers", "name is null"),
        bad("header name empty", b -> b.header("", "v"), "headers", "name is empty"),
        bad("header id", b -> b.header("id", "v"), "headers", "choose another name"),
        bad("header event_type", b -> b.header("event_type", "v"), "headers", "relay's own"),
        bad(
            "header aggregate_type",
            b -> b.header("aggregate_type", "v"),
            "headers",
            "relay's own"),
        bad("header aggregate_id", b -> b.header("aggregate_id", "v"), "headers", "relay's own"),
        bad("header aggregate_version", b -> b.header("aggregate_version", "v"), "headers", "own"),
        bad("header value null", b -> b.header("tenant", null), "headers", "null value"),
        bad("header over the bound", b -> b.header("abcd", big), "headers", "8193 bytes"),
        bad(
            "header over the bound in UTF-8",
            b -> b.header("n", "é".repeat(4096)),
            "headers",
            "8193 bytes"),
        bad(
            "header value unpaired surrogate",
            b -> b.header("t", "a\uD800b"),
            "headers",
            "index 1"),
        bad("header value with U+0000", b -> b.header("t", "a\u0000"), "headers", "U+0000"));
  }

  private static Arguments bad(
      String name, Function<NewEvent.Builder, NewEvent.Builder> make, String field, String says) {
    return Arguments.of(name, make, field, says);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badEvents")
  void refusesABadEventAsThe50thOfABatchAndWritesNothing(
      String name, Function<NewEvent.Builder, NewEvent.Builder> make, String field, String says)
      throws Exception {
    OutboxWriter writer = OutboxWriter.builder().build();
    List<NewEvent> batch = events(100);
    batch.set(49, make.apply(NewEvent.builder("order", "o-49", "OrderPaid").payload("{}")).build());

    try (Connection c = db.connect()) {
      assertThatThrownBy(() -> writer.appendAll(c, batch))
          .isInstanceOfSatisfying(
              InvalidEventException.class,
              e -> {
                assertThat(e.index()).isEqualTo(49);
                assertThat(e.field()).isEqualTo(field);
              })
          .hasMessageStartingWith("event #50 of 100 (")
          .hasMessageContaining(says);
      assertThat(db.count("outbox_events")).isZero();
      // No statement ran: the transaction goes on (PostgreSQL would have aborted it otherwise).
      writer.append(c, event(1));
      c.commit();
    }
    assertThat(db.count("outbox_events")).isEqualTo(1);
  }

  @Test
  void acceptsAHeaderOfExactlyTheBound() throws Exception {
    OutboxWriter writer = OutboxWriter.builder().build();
    String value = "€".repeat((ApplicationHeaders.MAX_ENTRY_BYTES - 2) / 3);
    String name = "n".repeat(ApplicationHeaders.MAX_ENTRY_BYTES - 3 * value.length());
    assertThat(name.length() + 3 * value.length()).isEqualTo(ApplicationHeaders.MAX_ENTRY_BYTES);
    String id;
    try (Connection c = db.connect()) {
      id =
          writer.append(
              c,
              NewEvent.builder("order", "o-1", "OrderPaid")
                  .payload("{}")
                  .header(name, value)
                  .build());
      c.commit();
    }
    assertThat(parseHeaders(db.row(id).get("headers"))).isEqualTo(Map.of(name, value));
  }

  @Test
  void serializesPayloadObjectsWithJacksonAndRefusesAFailingOneWithoutWriting() throws Exception {
    PayloadSerializer jackson = new JacksonPayloadSerializer(JSON);
    OutboxWriter writer =
        OutboxWriter.builder()
            .serializer(
                payload -> {
                  if (payload instanceof Paid paid && paid.cents() < 0) {
                    throw new IllegalArgumentException("negative amount");
                  }
                  return jackson.serialize(payload);
                })
            .build();
    List<NewEvent> batch = new ArrayList<>();
    for (int n = 0; n < 100; n++) {
      batch.add(NewEvent.of("order", "o-" + n, "OrderPaid", new Paid("o-" + n, n == 49 ? -1 : n)));
    }

    try (Connection c = db.connect()) {
      assertThatThrownBy(() -> writer.appendAll(c, batch))
          .isInstanceOf(InvalidEventException.class)
          .hasMessageStartingWith("event #50 of 100 (order/o-49 OrderPaid): the payload (a ")
          .hasMessageContaining("cannot be serialised")
          .hasRootCauseMessage("negative amount");
      assertThat(db.count("outbox_events")).isZero();
      batch.set(49, NewEvent.of("order", "o-49", "OrderPaid", new Paid("o-49", 49)));
      List<String> ids = writer.appendAll(c, batch);
      c.commit();
      assertThat(JSON.readTree((String) db.row(ids.get(7)).get("payload")))
          .isEqualTo(JSON.readTree("{\"orderId\":\"o-7\",\"cents\":7}"));
    }
    assertThat(db.count("outbox_events")).isEqualTo(100);
  }

  @Test
  void writesPayloadBytesAsUtf8Text() throws Exception {
    OutboxWriter writer = OutboxWriter.builder().build();
    String text = "{\"city\":\"München\",\"clef\":\"𝄞\"}";
    String id;
    try (Connection c = db.connect()) {
      id =
          writer.append(
              c, NewEvent.of("order", "o-1", "OrderPaid", text.getBytes(StandardCharsets.UTF_8)));
      c.commit();
    }
    assertThat(JSON.readTree((String) db.row(id).get("payload"))).isEqualTo(JSON.readTree(text));
  }

  @Test
  void rollsBackEveryStatementOfACallWhenALaterOneFails() throws Exception {
    OutboxWriter writer = OutboxWriter.builder().build();
    int count = 3 * JdbcOutboxWriter.MAX_ROWS;
    List<NewEvent> batch = events(count);
    String duplicate = UUID.randomUUID().toString();
    batch.set(3, NewEvent.builder("order", "o-3", "T").eventId(duplicate).payload("{}").build());
    batch.set(
        count - 2, NewEvent.builder("order", "o-x", "T").eventId(duplicate).payload("{}").build());

    try (Connection c = db.connect()) {
      assertThatThrownBy(() -> writer.appendAll(c, batch)).isInstanceOf(SQLException.class);
      // The savepoint of the call was rolled back to: the transaction goes on without its rows.
      writer.append(c, event(1));
      c.commit();
    }
    assertThat(db.count("outbox_events")).isEqualTo(1);
  }

  @Test
  void writesToATableWithCustomNames() throws Exception {
    db.execute(
        "CREATE TABLE app_events (seq "
            + (db.dialect() == Dialect.MYSQL
                ? "BIGINT AUTO_INCREMENT PRIMARY KEY"
                : "bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY")
            + ", eid VARCHAR(64) NOT NULL, atype VARCHAR(255) NOT NULL, aid VARCHAR(255) NOT NULL,"
            + " etype VARCHAR(255) NOT NULL, body TEXT NOT NULL, ver BIGINT NULL, meta TEXT NULL)");
    OutboxWriter writer =
        OutboxWriter.builder()
            .table("app_events")
            .eventIdColumn("eid")
            .aggregateTypeColumn("atype")
            .aggregateIdColumn("aid")
            .eventTypeColumn("etype")
            .payloadColumn("body")
            .aggregateVersionColumn("ver")
            .headersColumn("meta")
            .dialect(db.dialect())
            .build();
    String id;
    try (Connection c = db.connect()) {
      id =
          writer.append(
              c,
              NewEvent.builder("order", "o-1", "OrderPaid")
                  .payload("{\"a\":1}")
                  .aggregateVersion(1)
                  .header("tenant", "acme")
                  .build());
      c.commit();
    }

    Map<String, Object> row = db.row("app_events", "eid", id);
    assertThat(row)
        .containsEntry("atype", "order")
        .containsEntry("aid", "o-1")
        .containsEntry("etype", "OrderPaid")
        .containsEntry("body", "{\"a\":1}")
        .containsEntry("meta", "{\"tenant\":\"acme\"}");
    assertThat(((Number) row.get("ver")).longValue()).isEqualTo(1);
    assertThat(db.count("outbox_events")).isZero();
  }

  @Test
  void writesToATableWithoutTheOptionalColumnsAndRefusesEventsThatNeedThem() throws Exception {
    db.execute(
        "ALTER TABLE outbox_events DROP COLUMN aggregate_version",
        "ALTER TABLE outbox_events DROP COLUMN headers");
    OutboxWriter writer = OutboxWriter.builder().build();
    Span span = startSpan();
    try (Connection c = db.connect();
        Scope scope = span.makeCurrent()) {
      String id = writer.append(c, event(1));
      List<NewEvent> versioned = events(100);
      versioned.set(49, NewEvent.builder("a", "o", "T").payload("{}").aggregateVersion(2).build());
      assertThatThrownBy(() -> writer.appendAll(c, versioned))
          .isInstanceOf(InvalidEventException.class)
          .hasMessageContaining("event #50 of 100")
          .hasMessageContaining("has no column aggregate_version");
      List<NewEvent> withHeaders = events(100);
      withHeaders.set(49, NewEvent.builder("a", "o", "T").payload("{}").header("t", "x").build());
      assertThatThrownBy(() -> writer.appendAll(c, withHeaders))
          .isInstanceOf(InvalidEventException.class)
          .hasMessageContaining("has no column headers");
      c.commit();
      assertThat(db.row(id)).doesNotContainKeys("headers", "aggregate_version");
    } finally {
      span.end();
    }
    assertThat(db.count("outbox_events")).isEqualTo(1);
  }

  @Test
  void writesNoVersionOrHeadersWhenBuiltWithoutThoseColumns() throws Exception {
    OutboxWriter writer =
        OutboxWriter.builder().aggregateVersionColumn(null).headersColumn(null).build();
    String id;
    try (Connection c = db.connect()) {
      id = writer.append(c, event(1));
      assertThatThrownBy(
              () ->
                  writer.append(
                      c, NewEvent.builder("a", "o", "T").payload("{}").aggregateVersion(1).build()))
          .hasMessageContaining("built without that column (aggregateVersionColumn(null))");
      c.commit();
    }
    assertThat(db.row(id).get("aggregate_version")).isNull();
    assertThat(db.row(id).get("headers")).isNull();
  }

  @Test
  void explainsATableThatDoesNotExistOrLacksAColumn() throws Exception {
    try (Connection c = db.connect()) {
      assertThatThrownBy(() -> OutboxWriter.builder().table("no_such").build().append(c, event(1)))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("cannot read the outbox table no_such")
          .hasMessageContaining("outbox-schema.sql");
      c.rollback();
      assertThatThrownBy(
              () -> OutboxWriter.builder().eventTypeColumn("kind").build().append(c, event(1)))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("has no column kind")
          .hasMessageContaining("eventTypeColumn(...)");
    }
  }

  @Test
  void refusesAnAggregateTypeNoTopicMayHoldAndWritesNothing() throws Exception {
    try (Connection c = db.connect()) {
      OutboxWriter writer = OutboxWriter.builder().build();
      assertThatThrownBy(
              () ->
                  writer.appendAll(
                      c,
                      List.of(
                          NewEvent.of("order", "o-1", "OrderPlaced", "{}"),
                          NewEvent.of("order line", "o-1", "LineAdded", "{}"))))
          .isInstanceOf(InvalidEventException.class)
          .hasMessageContaining("event #2 of 2 (order line/o-1 LineAdded)")
          .hasMessageContaining("which no Kafka topic may hold");
      String id = writer.append(c, NewEvent.of("order.line_item-v2", "o-1", "LineAdded", "{}"));
      c.commit();

      assertThat(db.eventIdsInInsertOrder()).containsExactly(id);
    }
  }

  @Test
  void refusesAConfiguredDialectThatIsNotTheDatabasesNamingBoth() throws Exception {
    Dialect other = db.dialect() == Dialect.MYSQL ? Dialect.POSTGRESQL : Dialect.MYSQL;
    try (Connection c = db.connect()) {
      assertThatThrownBy(() -> OutboxWriter.builder().dialect(other).build().append(c, event(1)))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageStartingWith(
              "the outbox writer is configured with dialect " + other + " but the database is ")
          .hasMessageContaining("set the dialect to " + db.dialect())
          .hasMessageContaining(
              "outbox.writer.dialect=" + (db.dialect() == Dialect.MYSQL ? "mysql" : "postgresql"))
          .hasMessageNotContaining("outbox-schema.sql");
      c.rollback();
    }
    assertThat(db.count("outbox_events")).isZero();
  }

  /** A span of the SDK (which gives valid spans only with a span processor registered). */
  private static Span startSpan() {
    SpanProcessor keepNothing =
        new SpanProcessor() {
          @Override
          public void onStart(Context parentContext, ReadWriteSpan span) {}

          @Override
          public boolean isStartRequired() {
            return false;
          }

          @Override
          public void onEnd(ReadableSpan span) {}

          @Override
          public boolean isEndRequired() {
            return false;
          }
        };
    Span span =
        SdkTracerProvider.builder()
            .addSpanProcessor(keepNothing)
            .build()
            .get("test")
            .spanBuilder("place order")
            .startSpan();
    assertThat(span.getSpanContext().isValid()).isTrue();
    return span;
  }

  @Test
  void storesTheCurrentSpanAsTraceparentWithItsStateAndBaggage() throws Exception {
    OutboxWriter writer = OutboxWriter.builder().build();
    Span parent = startSpan();
    SpanContext traced =
        SpanContext.create(
            parent.getSpanContext().getTraceId(),
            parent.getSpanContext().getSpanId(),
            TraceFlags.getSampled(),
            TraceState.builder().put("vendor", "v1").build());
    Context context =
        Context.root()
            .with(Span.wrap(traced))
            .with(Baggage.builder().put("customer", "c-7").build());
    String id;
    String callerWins;
    try (Connection c = db.connect();
        Scope scope = context.makeCurrent()) {
      id = writer.append(c, NewEvent.builder("a", "o", "T").payload("{}").header("k", "v").build());
      callerWins =
          writer.append(
              c, NewEvent.builder("a", "o", "T").payload("{}").header("baggage", "mine").build());
      c.commit();
    } finally {
      parent.end();
    }

    Map<String, String> headers = parseHeaders(db.row(id).get("headers"));
    assertThat(headers)
        .containsEntry("k", "v")
        .containsEntry(
            "traceparent", "00-" + traced.getTraceId() + "-" + traced.getSpanId() + "-01")
        .containsEntry("tracestate", "vendor=v1")
        .containsEntry("baggage", "customer=c-7");
    assertThat(parseHeaders(db.row(callerWins).get("headers"))).containsEntry("baggage", "mine");
  }

  @Test
  void storesTheTraceAndSpanIdOfASpanOfTheSdk() throws Exception {
    OutboxWriter writer = OutboxWriter.builder().build();
    Span span = startSpan();
    String id;
    try (Connection c = db.connect();
        Scope scope = span.makeCurrent()) {
      id = writer.append(c, event(1));
      c.commit();
    } finally {
      span.end();
    }

    SpanContext context = span.getSpanContext();
    assertThat(parseHeaders(db.row(id).get("headers")))
        .isEqualTo(
            Map.of(
                "traceparent",
                "00-"
                    + context.getTraceId()
                    + "-"
                    + context.getSpanId()
                    + "-"
                    + context.getTraceFlags().asHex()));
  }

  @Test
  void writesNoTraceHeadersWithoutASpanOrWhenSwitchedOff() throws Exception {
    Span span = startSpan();
    String noSpan;
    String off;
    try (Connection c = db.connect()) {
      noSpan = OutboxWriter.builder().build().append(c, event(1));
      try (Scope scope = span.makeCurrent()) {
        off = OutboxWriter.builder().traceContext(false).build().append(c, event(2));
      }
      c.commit();
    } finally {
      span.end();
    }

    assertThat(db.row(noSpan).get("headers")).isNull();
    assertThat(db.row(off).get("headers")).isNull();
  }
}
