package io.outboxrelay.relay.source.polling;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Chooses what a claim may take from one window of unsettled rows read in id order: the due rows
 * and, with aggregate ordering, of those only an aggregate's head. The window holds every {@code
 * PENDING} and {@code PROCESSING} row of its id range; {@code blocked} holds the aggregates that
 * had such a row earlier in the sweep (lower ids), so a row is a head when its aggregate is not
 * blocked and no earlier row of the window belongs to it. A row that is not due (a retry waiting
 * out its backoff, a lease not yet expired) blocks its aggregate as much as one that is taken.
 * Pure, and not thread-safe ({@code blocked} is updated).
 */
final class WindowHeads {

  private WindowHeads() {}

  /**
   * One row of a window.
   *
   * @param id the sequence column's value
   * @param aggregate the aggregate's type and id, as one key
   * @param leased whether the row is {@code PROCESSING} (else {@code PENDING})
   * @param due whether it may be taken now: a pending row whose {@code next_attempt_at} has passed,
   *     a leased row whose lease expired
   */
  record Row(long id, String aggregate, boolean leased, boolean due) {}

  /**
   * What a window offers.
   *
   * @param ids the rows that may be taken, in id order
   * @param added the aggregates this window added to {@code blocked}, in id order of their first
   *     row: what to remove to look at the window again
   */
  record Choice(List<Long> ids, List<String> added) {}

  /**
   * Picks the rows of {@code window} that may be taken, in id order.
   *
   * @param window the rows, in id order
   * @param ordered whether only an aggregate's head may be taken
   * @param blocked the aggregates with an unsettled row earlier in the sweep; the aggregates of the
   *     window's rows are added
   * @return the rows picked, and the aggregates added to {@code blocked}
   */
  static Choice pick(List<Row> window, boolean ordered, Set<String> blocked) {
    List<Long> ids = new ArrayList<>();
    List<String> added = new ArrayList<>();
    for (Row row : window) {
      boolean head = !ordered || blocked.add(row.aggregate());
      if (ordered && head) {
        added.add(row.aggregate());
      }
      if (head && row.due()) {
        ids.add(row.id());
      }
    }
    return new Choice(ids, added);
  }
}
