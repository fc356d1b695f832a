package io.outboxrelay.relay.source.polling;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The 32-bit transaction ids of {@code pg_locks} read as the 64-bit ids the sweeps wait for. */
class ClaimSweepXidTest {

  private static final long EPOCH = 1L << 32;

  @Test
  void anIdBehindTheReferenceInTheSameEpochKeepsIt() {
    assertThat(ClaimSweep.fullXid(3 * EPOCH + 1_000, 900)).isEqualTo(3 * EPOCH + 900);
  }

  @Test
  void anIdThatPassedTheReferenceKeepsItsEpoch() {
    // The reference is the snapshot's xmax; a transaction that took its id since is ahead of it.
    assertThat(ClaimSweep.fullXid(3 * EPOCH + 1_000, 1_005)).isEqualTo(3 * EPOCH + 1_005);
  }

  @Test
  void anIdFromBeforeTheWrapIsInTheEpochBefore() {
    // The counter wrapped to epoch 4 a moment ago; the writer took its id just before.
    assertThat(ClaimSweep.fullXid(4 * EPOCH + 10, 0xFFFF_FFF0L))
        .isEqualTo(3 * EPOCH + 0xFFFF_FFF0L);
  }

  @Test
  void anIdAfterTheWrapIsInTheNextEpoch() {
    // The reference is just before the wrap; the writer's id is just after it.
    assertThat(ClaimSweep.fullXid(3 * EPOCH + 0xFFFF_FFF0L, 5)).isEqualTo(4 * EPOCH + 5);
  }

  @Test
  void theFarthestRunningIdsOnEitherSideAreRead() {
    long reference = 7 * EPOCH + 100;
    long behind = reference - (1L << 31) + 1;
    long ahead = reference + (1L << 31) - 1;
    assertThat(ClaimSweep.fullXid(reference, behind & 0xFFFF_FFFFL)).isEqualTo(behind);
    assertThat(ClaimSweep.fullXid(reference, ahead & 0xFFFF_FFFFL)).isEqualTo(ahead);
  }

  @Test
  void theFirstEpochNeverGoesNegative() {
    assertThat(ClaimSweep.fullXid(1_000, 998)).isEqualTo(998);
    assertThat(ClaimSweep.fullXid(3, 3)).isEqualTo(3);
  }
}
