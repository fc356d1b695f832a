package io.outboxrelay.writer;

import java.security.SecureRandom;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.function.LongSupplier;

/**
 * UUID version 7 (RFC 9562 §5.7): a 48-bit Unix timestamp in milliseconds, the version 7, 74 bits
 * that are random for the first id of a millisecond, and the variant {@code 10}. Ids of one
 * generator increase strictly, in their text form as in their bytes, by RFC 9562 §6.2 method 2
 * ("monotonic random"): within one millisecond the 74 bits count on from the first id's random
 * value in random steps of 1 to 2<sup>32</sup>. The first value of a millisecond leaves the top bit
 * of the 74 clear, so the count has at least 2<sup>73</sup> of room (about 2<sup>41</sup> ids per
 * millisecond); if it ever overflows, the generator moves on to the next millisecond. When the
 * clock steps back, the generator keeps its last millisecond and counts on, so ids never go
 * backwards.
 *
 * <p>The random bits come from a fast generator seeded from {@link SecureRandom}: event ids must be
 * unique, not secret. Thread-safe.
 */
final class UuidV7 {

  private static final long LOW_62 = (1L << 62) - 1;
  private static final long MAX_12 = (1L << 12) - 1;
  private static final long MAX_STEP = 1L << 32;

  private static final UuidV7 SHARED = new UuidV7(System::currentTimeMillis, seed());

  private final LongSupplier clock;
  private final SplittableRandom random;
  private long millis = Long.MIN_VALUE;
  private long randA; // 12 bits
  private long randB; // 62 bits

  UuidV7(LongSupplier clock, long seed) {
    this.clock = clock;
    this.random = new SplittableRandom(seed);
  }

  /** The JVM's generator: ids from every writer of the JVM increase together. */
  static UuidV7 shared() {
    return SHARED;
  }

  private static long seed() {
    return new SecureRandom().nextLong();
  }

  /** The next id; strictly greater than every id this generator gave before. */
  synchronized UUID next() {
    long now = clock.getAsLong();
    if (now > millis) {
      startMillisecond(now);
    } else {
      randB += 1 + random.nextLong(MAX_STEP);
      if (randB > LOW_62) {
        randB &= LOW_62;
        if (++randA > MAX_12) {
          startMillisecond(millis + 1);
        }
      }
    }
    long msb = (millis << 16) | 0x7000L | randA;
    long lsb = Long.MIN_VALUE | randB;
    return new UUID(msb, lsb);
  }

  /** Sets the state as if the last id had these fields: for tests of the counter's overflow. */
  synchronized void continueFrom(long lastMillis, long lastRandA, long lastRandB) {
    this.millis = lastMillis;
    this.randA = lastRandA;
    this.randB = lastRandB;
  }

  private void startMillisecond(long at) {
    millis = at;
    randA = random.nextLong(1L << 11);
    randB = random.nextLong() & LOW_62;
  }
}
