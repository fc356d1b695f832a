package io.outboxrelay.relay.config;

/**
 * Whether the relay watches the {@code aggregate_version} of the events it publishes, per
 * aggregate. It only logs and counts what it finds: it never holds back, drops or reorders an
 * event, because publishing in the source's order is what keeps every other guarantee.
 */
public enum VersionCheck {
  /** No watching, no state kept. */
  OFF,
  /**
   * A version not above the last one this relay published for its aggregate (a version that goes
   * backwards, or a second event with the same version) is logged at WARN and counted. Sound with
   * any number of relay processes: each sees an increasing part of an aggregate's versions.
   */
  BACKWARDS,
  /**
   * As {@link #BACKWARDS}, and a version that skips ahead of the last one plus one is logged and
   * counted too: for applications whose versions grow by one per event (what the consumer library's
   * {@code GapPolicy.REJECT} expects), published by one relay process (CDC, or one polling
   * process), which then sees every version.
   */
  CONTIGUOUS
}
