package io.outboxrelay.writer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class UuidV7Test {

  private static final long NOW = 1_767_225_600_000L; // 2026-01-01T00:00:00Z

  private static long millisOf(UUID id) {
    return id.getMostSignificantBits() >>> 16;
  }

  private static void assertAscending(List<UUID> ids) {
    for (int i = 1; i < ids.size(); i++) {
      UUID a = ids.get(i - 1);
      UUID b = ids.get(i);
      assertThat(a.toString()).as("text order at %d", i).isLessThan(b.toString());
      int byBytes =
          a.getMostSignificantBits() != b.getMostSignificantBits()
              ? Long.compareUnsigned(a.getMostSignificantBits(), b.getMostSignificantBits())
              : Long.compareUnsigned(a.getLeastSignificantBits(), b.getLeastSignificantBits());
      assertThat(byBytes).as("byte order at %d", i).isNegative();
    }
  }

  @Test
  void putsTheUnixMillisecondsVersion7AndTheRfcVariantIntoEachId() {
    UuidV7 generator = new UuidV7(() -> NOW, 1);

    UUID id = generator.next();

    assertThat(id.version()).isEqualTo(7);
    assertThat(id.variant()).isEqualTo(2);
    assertThat(millisOf(id)).isEqualTo(NOW);
    assertThat(id.toString()).startsWith(String.format("%08x-%04x-7", NOW >>> 16, NOW & 0xffff));
  }

  @Test
  void increasesStrictlyWithinOneMillisecond() {
    UuidV7 generator = new UuidV7(() -> NOW, 2);
    List<UUID> ids = new ArrayList<>();
    for (int i = 0; i < 100_000; i++) {
      ids.add(generator.next());
    }

    assertAscending(ids);
    assertThat(ids).allSatisfy(id -> assertThat(millisOf(id)).isEqualTo(NOW));
    assertThat(ids).allSatisfy(id -> assertThat(id.version()).isEqualTo(7));
    assertThat(ids).allSatisfy(id -> assertThat(id.variant()).isEqualTo(2));
  }

  @Test
  void startsEachMillisecondAtARandomValueAndOrdersAcrossMilliseconds() {
    AtomicLong clock = new AtomicLong(NOW);
    UuidV7 generator = new UuidV7(clock::get, 3);
    List<UUID> ids = new ArrayList<>();
    Set<Long> firstRandA = new java.util.HashSet<>();
    for (int ms = 0; ms < 50; ms++) {
      clock.incrementAndGet();
      UUID first = generator.next();
      firstRandA.add(first.getMostSignificantBits() & 0xfff);
      ids.add(first);
      ids.add(generator.next());
    }

    assertAscending(ids);
    assertThat(firstRandA).as("random, not a reset counter").hasSizeGreaterThan(40);
    assertThat(firstRandA).allSatisfy(randA -> assertThat(randA).isLessThan(1 << 11));
  }

  @Test
  void keepsIncreasingWhenTheClockStepsBack() {
    AtomicLong clock = new AtomicLong(NOW);
    UuidV7 generator = new UuidV7(clock::get, 4);
    UUID before = generator.next();
    clock.set(NOW - 10_000);

    UUID after = generator.next();

    assertAscending(List.of(before, after));
    assertThat(millisOf(after)).isEqualTo(NOW);
  }

  @Test
  void movesToTheNextMillisecondWhenTheCounterOverflows() {
    UuidV7 generator = new UuidV7(() -> NOW, 5);
    generator.continueFrom(NOW, 0xfff, (1L << 62) - 1);

    UUID next = generator.next();

    assertThat(millisOf(next)).isEqualTo(NOW + 1);
    assertThat(next.version()).isEqualTo(7);
    assertThat(next.variant()).isEqualTo(2);
    assertAscending(List.of(new UUID((NOW << 16) | 0x7fffL, -1L >>> 2 | Long.MIN_VALUE), next));
  }

  @Test
  void carriesIntoTheTwelveBitsWhenTheLowBitsOverflow() {
    UuidV7 generator = new UuidV7(() -> NOW, 6);
    generator.continueFrom(NOW, 0x123, (1L << 62) - 1);

    UUID next = generator.next();

    assertThat(millisOf(next)).isEqualTo(NOW);
    assertThat(next.getMostSignificantBits() & 0xfff).isEqualTo(0x124);
  }

  @Test
  void givesDistinctAscendingIdsToConcurrentThreads() throws Exception {
    UuidV7 generator = UuidV7.shared();
    Set<UUID> all = ConcurrentHashMap.newKeySet();
    ExecutorService threads = Executors.newFixedThreadPool(4);
    List<Future<List<UUID>>> perThread = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      perThread.add(
          threads.submit(
              () -> {
                List<UUID> ids = new ArrayList<>();
                for (int i = 0; i < 20_000; i++) {
                  ids.add(generator.next());
                }
                return ids;
              }));
    }
    for (Future<List<UUID>> ids : perThread) {
      List<UUID> mine = ids.get(30, TimeUnit.SECONDS);
      assertAscending(mine);
      all.addAll(mine);
    }
    threads.shutdown();

    assertThat(all).hasSize(80_000);
  }
}
