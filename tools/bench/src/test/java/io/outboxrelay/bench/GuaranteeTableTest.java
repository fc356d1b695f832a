package io.outboxrelay.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outboxrelay.relay.config.DeliveryGuarantee;
import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.stack.ConsumedRecord;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The exactly-once group's bookkeeping: the order of the runs, the options, the spread and the
 * same-round ratio in its table, runs whose events were not all visible left out, and duplicates
 * attributed to the fault after which they were appended.
 */
class GuaranteeTableTest {

  private static final DeliveryGuarantee ALO = DeliveryGuarantee.AT_LEAST_ONCE;
  private static final DeliveryGuarantee EOS = DeliveryGuarantee.EXACTLY_ONCE;

  private static GuaranteeRun run(
      DeliveryGuarantee g, int round, double drainSeconds, long missing) {
    Percentiles latency = Percentiles.of(new double[] {4, 5, 30});
    return new GuaranteeRun(
        g,
        round,
        10_000,
        1.5,
        drainSeconds,
        0.3,
        2_000,
        1.0,
        0.5,
        latency,
        latency,
        missing,
        0,
        200);
  }

  @Test
  void reversesTheOrderOfTheGuaranteesEveryOtherRound() {
    List<DeliveryGuarantee> both = List.of(ALO, EOS);

    assertThat(GuaranteeBench.order(both, 1)).containsExactly(ALO, EOS);
    assertThat(GuaranteeBench.order(both, 2)).containsExactly(EOS, ALO);
    assertThat(GuaranteeBench.order(both, 3)).containsExactly(ALO, EOS);
  }

  @Test
  void takesTheGuaranteesAsTheRelaySpellsThemAndRefusesOthers() {
    assertThat(BenchOptions.parse(new String[] {"--only", "exactly-once"}).guarantees)
        .containsExactly(ALO, EOS);
    assertThat(BenchOptions.parse(new String[] {"--guarantees", "exactly-once"}).guarantees)
        .containsExactly(EOS);
    assertThat(GuaranteeBench.configName(EOS)).isEqualTo("exactly-once");
    assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--guarantees", "exactly_once"}))
        .hasMessageContaining("unknown guarantee in --guarantees: exactly_once");
    assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--guarantee-rounds", "0"}))
        .hasMessage("--guarantee-rounds must be 1 or more, got 0");
    assertThat(BenchOptions.parse(new String[] {"--only", "cdc", "--help"}).help).isTrue();
  }

  @Test
  void givesTheMedianAndRangeAndExactlyOncesShareOfTheSameRound() {
    GuaranteeTable table = new GuaranteeTable();
    table.conditions(10_000, 2_000, 10, 1_000, 20);
    table.add(run(ALO, 1, 1.0, 0)); // 10,000 events/s
    table.add(run(EOS, 1, 1.25, 0)); // 8,000: 80% of its round's
    table.add(run(EOS, 2, 2.0, 0)); // 5,000: 50%
    table.add(run(ALO, 2, 1.0, 0));

    String drainRow = table.render().lines().filter(l -> l.startsWith("| drain")).findFirst().get();

    assertThat(drainRow)
        .contains("| 10,000 (10,000–10,000) | 6,500 (5,000–8,000) | 65% (50–80%) |");
  }

  @Test
  void leavesOutOfTheFiguresARunInWhichAnEventNeverBecameVisible() {
    GuaranteeTable table = new GuaranteeTable();
    table.conditions(10_000, 2_000, 10, 1_000, 20);
    table.add(run(ALO, 1, 1.0, 0));
    table.add(run(EOS, 1, 1.25, 3));

    String rendered = table.render();

    assertThat(rendered.lines().filter(l -> l.startsWith("| drain")).findFirst().get())
        .contains("| 10,000 | - | - |");
    assertThat(rendered)
        .contains("NO, figures of that round void: round 1: 3 of 12,000 never visible");
  }

  @Test
  void attributesEachDuplicateToTheFaultAfterWhichItWasAppended() {
    Map<String, Long> begins = new LinkedHashMap<>();
    begins.put("kill -9 #1", 100L);
    begins.put("broker stopped 10 s", 200L);
    List<ConsumedRecord> records =
        List.of(
            record("a", 50),
            record("b", 90),
            record("a", 150), // again after the kill
            record("b", 160),
            record("c", 210),
            record("c", 250)); // again after the broker stop

    assertThat(GuaranteeFaultRun.duplicatesByFault(records, begins))
        .containsExactly(
            Map.entry("before the faults", 0),
            Map.entry("kill -9 #1", 2),
            Map.entry("broker stopped 10 s", 1));
  }

  @Test
  void showsEachFaultRunsLostDuplicatesAndDisorderPerGuarantee() {
    GuaranteeTable table = new GuaranteeTable();
    table.conditions(10_000, 2_000, 10, 1_000, 20);
    Ledger.Result clean = new Ledger.Result(5_000, 5_000, 0, 0, 0, 0, List.of());
    Ledger.Result twice = new Ledger.Result(5_000, 5_120, 0, 120, 0, 0, List.of());
    table.addFaults(new GuaranteeFaultRun.Result(ALO, 1, twice, twice, Map.of("kill -9 #1", 120)));
    table.addFaults(new GuaranteeFaultRun.Result(EOS, 1, clean, twice, Map.of("kill -9 #1", 0)));

    String row =
        table.render().lines().filter(l -> l.contains("read_committed: lost")).findFirst().get();

    assertThat(row).contains("| 0 / 120 / 0 | 0 / 0 / 0 |");
  }

  private static ConsumedRecord record(String id, long appended) {
    return new ConsumedRecord(
        "t",
        0,
        appended,
        null,
        Map.of("id", id.getBytes(StandardCharsets.UTF_8)),
        new byte[0],
        appended);
  }
}
