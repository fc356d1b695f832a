package io.outboxrelay.relay.config;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * A check that relates several keys, declared in {@link RelayConfigKeys} right after them. It runs
 * only in the modes that use every one of its keys (or fewer, see {@link #onlyIn}), and only when
 * each of them has a value: a key that is missing or wrong is reported on its own. Immutable and
 * thread-safe.
 */
final class CrossCheck {

  private final List<ConfigKey<?>> keys;
  private final Set<RelayMode> modes;
  private final Function<ConfigValues, String> check;

  private CrossCheck(
      List<ConfigKey<?>> keys, Set<RelayMode> modes, Function<ConfigValues, String> check) {
    this.keys = keys;
    this.modes = modes;
    this.check = check;
  }

  /**
   * A check over the given keys.
   *
   * @param check returns {@code null} when the values fit together, otherwise what is wrong
   * @param keys the keys it reads
   * @return the check, for the modes that use all the keys
   */
  static CrossCheck of(Function<ConfigValues, String> check, ConfigKey<?>... keys) {
    Set<RelayMode> modes = EnumSet.allOf(RelayMode.class);
    for (ConfigKey<?> key : keys) {
      modes.retainAll(key.usedIn());
    }
    return new CrossCheck(List.of(keys), Set.copyOf(modes), check);
  }

  /**
   * The first value must not be larger than the second ({@code initial} and {@code max} of a
   * backoff).
   *
   * @param low the key that must not exceed the other
   * @param high the other key
   * @param <T> the value type
   * @return the check
   */
  static <T extends Comparable<? super T>> CrossCheck notAbove(
      ConfigKey<T> low, ConfigKey<T> high) {
    return of(
        v ->
            v.get(low).compareTo(v.get(high)) <= 0
                ? null
                : low.name()
                    + " must not exceed "
                    + high.name()
                    + ": lower the first or raise the second",
        low,
        high);
  }

  /**
   * Narrows the check to one mode.
   *
   * @param mode the only mode it runs in
   * @return a new check
   */
  CrossCheck onlyIn(RelayMode mode) {
    return new CrossCheck(keys, modes.contains(mode) ? Set.of(mode) : Set.of(), check);
  }

  /**
   * Applies the check.
   *
   * @param values the parsed values
   * @return what is wrong, or {@code null} when nothing is (or the check does not apply)
   */
  String problem(ConfigValues values) {
    if (!modes.contains(values.mode())) {
      return null;
    }
    for (ConfigKey<?> key : keys) {
      if (values.get(key) == null) {
        return null;
      }
    }
    return check.apply(values);
  }
}
