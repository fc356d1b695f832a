package io.outboxrelay.relay.failure;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.function.Predicate;

/** Walks a cause chain with a local cursor, once round a cycle at most. Stateless. */
final class Causes {

  private Causes() {}

  /** The first throwable of the chain, outermost first, that matches; null when none does. */
  static Throwable first(Throwable error, Predicate<Throwable> matches) {
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    for (Throwable cursor = error; cursor != null && seen.add(cursor); cursor = cursor.getCause()) {
      if (matches.test(cursor)) {
        return cursor;
      }
    }
    return null;
  }

  /** The first throwable of the chain of that type, or null. */
  static <T extends Throwable> T find(Throwable error, Class<T> type) {
    return type.cast(first(error, type::isInstance));
  }
}
