package io.outboxrelay.relay.source.polling;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The heads a claim chooses from one window of unsettled rows, in id order. */
class WindowHeadsTest {

  private static WindowHeads.Row pending(long id, String aggregate) {
    return new WindowHeads.Row(id, aggregate, false, true);
  }

  @Test
  void takesOnlyTheFirstUnsettledRowOfEachAggregate() {
    Set<String> blocked = new HashSet<>();
    WindowHeads.Choice choice =
        WindowHeads.pick(
            List.of(pending(1, "a"), pending(2, "b"), pending(3, "a"), pending(4, "c")),
            true,
            blocked);

    assertThat(choice.ids()).containsExactly(1L, 2L, 4L);
    assertThat(choice.added()).containsExactly("a", "b", "c");
    assertThat(blocked).containsExactlyInAnyOrder("a", "b", "c");
  }

  @Test
  void aRowThatIsNotDueHoldsBackTheLaterRowsOfItsAggregate() {
    WindowHeads.Choice choice =
        WindowHeads.pick(
            List.of(
                new WindowHeads.Row(1, "retry", false, false), // waiting out its backoff
                new WindowHeads.Row(2, "leased", true, false), // lease not expired
                new WindowHeads.Row(3, "expired", true, true), // lease expired: take over
                pending(4, "retry"),
                pending(5, "leased"),
                pending(6, "expired")),
            true,
            new HashSet<>());

    assertThat(choice.ids()).containsExactly(3L);
  }

  @Test
  void aggregatesSeenEarlierInTheSweepAreNotHeadsAgain() {
    Set<String> blocked = new HashSet<>(Set.of("a"));

    WindowHeads.Choice choice =
        WindowHeads.pick(List.of(pending(7, "a"), pending(8, "b")), true, blocked);

    assertThat(choice.ids()).containsExactly(8L);
    assertThat(choice.added()).containsExactly("b"); // "a" was blocked before this window
  }

  @Test
  void withoutAggregateOrderingTakesEveryDueRow() {
    Set<String> blocked = new HashSet<>();
    WindowHeads.Choice choice =
        WindowHeads.pick(
            List.of(pending(1, "a"), pending(2, "a"), new WindowHeads.Row(3, "a", false, false)),
            false,
            blocked);

    assertThat(choice.ids()).containsExactly(1L, 2L);
    assertThat(choice.added()).isEmpty();
    assertThat(blocked).isEmpty();
  }
}
