package io.outboxrelay.relay.failure;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/** The other direction of the classification tables: every outcome is reached by some error. */
final class Tables {

  private Tables() {}

  /**
   * Asserts that the second column of a table holds every value of an enum.
   *
   * @param table rows of (error, expected value)
   * @param type the enum
   */
  static <E extends Enum<E>> void assertEveryValueIsReached(
      Stream<Arguments> table, Class<E> type) {
    Set<Object> reached = table.map(a -> a.get()[1]).collect(Collectors.toSet());

    assertThat(reached).containsExactlyInAnyOrderElementsOf(EnumSet.allOf(type));
  }
}
