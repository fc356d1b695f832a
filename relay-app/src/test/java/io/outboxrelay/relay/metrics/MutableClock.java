package io.outboxrelay.relay.metrics;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock tests move by hand. Not thread-safe. */
public final class MutableClock extends Clock {

  private Instant now;

  /** A clock at {@code start}, in UTC. */
  public MutableClock(Instant start) {
    this.now = start;
  }

  /** Moves the clock forward. */
  public void advance(Duration by) {
    now = now.plus(by);
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }

  @Override
  public Instant instant() {
    return now;
  }
}
