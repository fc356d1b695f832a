package io.outboxrelay.relay.config;

/**
 * The per-aggregate version check's settings. Immutable.
 *
 * @param mode what is checked; {@link VersionCheck#OFF} keeps no state
 * @param aggregates how many aggregates the check remembers at most (the least recently published
 *     is forgotten first)
 */
public record VersionCheckConfig(VersionCheck mode, int aggregates) {

  /** The check off. */
  public static final VersionCheckConfig OFF = new VersionCheckConfig(VersionCheck.OFF, 1);

  /** Reads the {@code router.version.check*} keys. */
  static VersionCheckConfig from(ConfigValues v) {
    return new VersionCheckConfig(
        v.get(RelayConfigKeys.VERSION_CHECK), v.get(RelayConfigKeys.VERSION_CHECK_AGGREGATES));
  }
}
