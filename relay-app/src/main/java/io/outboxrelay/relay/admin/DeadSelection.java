package io.outboxrelay.relay.admin;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * The DEAD events a requeue or a skip changes: named ones (every one of them must be DEAD, or
 * nothing changes), or those a filter finds. Immutable.
 *
 * @param refs the named events, or empty when the filter selects
 * @param filter the filter (its limit bounds how many change at once), used when {@code refs} is
 *     empty
 */
public record DeadSelection(List<EventRef> refs, DeadFilter filter) {

  /** Freezes the list. */
  public DeadSelection {
    refs = List.copyOf(refs);
  }

  /**
   * Checks what the operator asked for.
   *
   * @param ids the positional arguments (ids or event ids)
   * @param filter the filter options
   * @param all whether {@code --all} was given
   * @return the selection
   * @throws AdminException (exit 2) for ids and filters together, or for neither
   */
  public static DeadSelection of(List<String> ids, DeadFilter filter, boolean all)
      throws AdminException {
    List<String> given = ids == null ? List.of() : ids;
    if (!given.isEmpty() && (filter.hasCriteria() || all)) {
      throw AdminException.usage(
          "give event ids or a filter (--event-type, --aggregate-type, --aggregate-id, --since,"
              + " --all), not both");
    }
    if (given.isEmpty() && !filter.hasCriteria() && !all) {
      throw AdminException.usage(
          "say which DEAD events: give their ids, a filter (--event-type, --aggregate-type,"
              + " --aggregate-id, --since), or --all for every one");
    }
    LinkedHashSet<EventRef> refs = new LinkedHashSet<>();
    for (String id : given) {
      refs.add(EventRef.parse(id));
    }
    return new DeadSelection(new ArrayList<>(refs), filter);
  }

  /** For messages. */
  public String describe() {
    return refs.isEmpty() ? "DEAD events (" + filter.describe() + ")" : refs.toString();
  }
}
