package io.outboxrelay.relay.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.relay.admin.KafkaCommitted.ResumesAt;
import io.outboxrelay.relay.source.cdc.KafkaPosition;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Where {@code status} says an exactly-once relay's next start resumes, from both positions. */
class KafkaCommittedTest {

  private static String at(long pos) {
    return "{\"ts_sec\":1738317700,\"file\":\"mariadb-bin.000002\",\"pos\":"
        + pos
        + ",\"gtids\":\"0-1-9\",\"server_id\":1}";
  }

  private static CdcState database(String offset, boolean handoff) throws Exception {
    Optional<OffsetsRow> stored =
        offset == null
            ? Optional.empty()
            : Optional.of(new OffsetsRow("r", "k", OffsetsRow.parseOffset(offset), null, 1));
    return new CdcState(
        stored,
        new BinlogServer.Position("mariadb-bin.000002", 9000, "0-1-20"),
        List.of(),
        1,
        Instant.EPOCH,
        null,
        handoff);
  }

  private static KafkaCommitted kafka(String position, CdcState state) {
    return KafkaCommitted.of(
        "progress", new KafkaPosition.Reading(Optional.ofNullable(position), null), state);
  }

  private static String text(KafkaCommitted k, CdcState state) {
    TextTable t = new TextTable("", "");
    k.print(t, state);
    StringWriter out = new StringWriter();
    t.print(new PrintWriter(out, true));
    return out.toString();
  }

  @Test
  void resumesAtKafkasPositionWhenTheDatabasesIsBehindIt() throws Exception {
    CdcState state = database(at(100), false);
    KafkaCommitted k = kafka(at(500), state);
    assertThat(k.resumesAt()).isEqualTo(ResumesAt.KAFKA);
    assertThat(text(k, state))
        .contains("Kafka's position:  mariadb-bin.000002:500 (GTID 0-1-9)")
        .contains("next start at:     Kafka's position (the database's is behind it");
  }

  @Test
  void resumesAtKafkasPositionWhenTheDatabaseHoldsNone() throws Exception {
    assertThat(kafka(at(500), database(null, false)).resumesAt()).isEqualTo(ResumesAt.KAFKA);
  }

  @Test
  void resumesAtTheDatabasesPositionWhenItIsTheSameOrLater() throws Exception {
    CdcState same = database(at(500), false);
    assertThat(kafka(at(500), same).resumesAt()).isEqualTo(ResumesAt.DATABASE);
    assertThat(text(kafka(at(500), same), same)).contains("the stored position, the same as");
    CdcState later = database(at(900), false);
    assertThat(kafka(at(500), later).resumesAt()).isEqualTo(ResumesAt.DATABASE);
    assertThat(text(kafka(at(500), later), later)).contains("it is later in the binlog");
  }

  @Test
  void aPendingHandoffWinsOverKafkasPosition() throws Exception {
    CdcState handoff = database(null, true);
    assertThat(kafka(at(500), handoff).resumesAt()).isEqualTo(ResumesAt.HANDOFF);
    assertThat(kafka(null, handoff).resumesAt()).isEqualTo(ResumesAt.HANDOFF);
  }

  @Test
  void withoutAnyPositionTheNextStartIsAFirstStart() throws Exception {
    assertThat(kafka(null, database(null, false)).resumesAt()).isEqualTo(ResumesAt.FIRST_START);
    assertThat(kafka(null, database(at(1), false)).resumesAt()).isEqualTo(ResumesAt.DATABASE);
  }

  @Test
  void anUnknownKafkaPositionIsOneLineAndLeavesTheNextStartUnknown() throws Exception {
    CdcState state = database(at(100), false);
    KafkaCommitted k =
        KafkaCommitted.of(
            "progress",
            new KafkaPosition.Reading(null, "Kafka at k:9092 did not answer within 5 s"),
            state);
    assertThat(k.resumesAt()).isEqualTo(ResumesAt.UNKNOWN);
    assertThat(text(k, state).lines().filter(l -> l.startsWith("Kafka's position:")))
        .singleElement()
        .asString()
        .endsWith("unknown (Kafka at k:9092 did not answer within 5 s)");
  }

  private static String postgresText(KafkaCommitted k, String stored) throws Exception {
    TextTable t = new TextTable("", "");
    k.print(
        t,
        stored == null || stored.contains("outbox_relay_") ? null : OffsetsRow.parseOffset(stored));
    StringWriter out = new StringWriter();
    t.print(new PrintWriter(out, true));
    return out.toString();
  }

  private static KafkaCommitted postgres(String kafka, String stored) {
    return KafkaCommitted.of(
        "progress",
        new KafkaPosition.Reading(Optional.ofNullable(kafka), null),
        stored,
        stored != null && stored.contains("outbox_relay_handoff"),
        true);
  }

  @Test
  void onPostgresqlShowsLsnsAndTakesTheLaterPositionInTheWal() throws Exception {
    String kafka = "{\"lsn_proc\":27830864,\"lsn_commit\":27831496,\"lsn\":27830864,\"txId\":1735}";
    String behind = "{\"lsn_proc\":26606920,\"lsn\":26606920,\"txId\":769}";
    KafkaCommitted k = postgres(kafka, behind);
    assertThat(k.resumesAt()).isEqualTo(ResumesAt.KAFKA);
    assertThat(postgresText(k, behind))
        .contains(
            "Kafka's position:  LSN 0/1A8AA50 (lsn_commit 0/1A8ACC8) (progress topic progress)")
        .contains("next start at:     Kafka's position (the database's is behind it");
    String reset = "{\"lsn\":40000000,\"ts_usec\":1}";
    KafkaCommitted afterReset = postgres(kafka, reset);
    assertThat(afterReset.resumesAt()).isEqualTo(ResumesAt.DATABASE);
    assertThat(postgresText(afterReset, reset)).contains("it is later in the WAL than Kafka's");
  }

  @Test
  void onPostgresqlAnUnfinishedFirstStartIsWhatTheNextStartDoes() throws Exception {
    String marker = "{\"outbox_relay_first_start\":\"2026-12-06T22:00:00Z\"}";
    String older = "{\"lsn_proc\":100,\"lsn_commit\":120,\"lsn\":100,\"txId\":7}";
    assertThat(postgres(older, marker).resumesAt()).isEqualTo(ResumesAt.FIRST_START);
    assertThat(postgres(null, marker).resumesAt()).isEqualTo(ResumesAt.FIRST_START);
    assertThat(postgresText(postgres(older, marker), marker))
        .contains("a first start (one did not finish: it begins again)");
    String handoff = "{\"outbox_relay_handoff\":\"2026-12-06T22:00:00Z\"}";
    assertThat(postgres(older, handoff).resumesAt()).isEqualTo(ResumesAt.HANDOFF);
    KafkaCommitted unknown =
        KafkaCommitted.of(
            "progress", new KafkaPosition.Reading(null, "Kafka did not answer"), null, false, true);
    assertThat(postgresText(unknown, null)).contains("later in the WAL");
  }
}
