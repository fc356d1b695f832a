package io.outboxrelay.relay.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.testsupport.stack.ProjectFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The distribution's launcher, {@code bin/outbox-relay}: the heap and young generation it gives the
 * JVM for each {@code OUTBOX_RELAY_HEAP}, read back from the JVM's own flags.
 */
class LauncherIT {

  private static final long MIB = 1024 * 1024;

  @ParameterizedTest(name = "OUTBOX_RELAY_HEAP={0}")
  @ValueSource(strings = {"256m", "256M", "1g", "268435456"})
  void aHeapOf256MbOrMoreGetsAYoungGenerationWhoseSurvivorsHoldTheEventsInFlight(String heap)
      throws Exception {
    Map<String, Long> flags = flagsWith(heap, null);

    assertThat(flags.get("NewSize")).isEqualTo(96 * MIB);
    assertThat(flags.get("MaxNewSize")).isEqualTo(96 * MIB);
    assertThat(flags.get("SurvivorRatio")).isEqualTo(4);
    assertThat(flags.get("TargetSurvivorRatio")).isEqualTo(90);
    assertThat(flags.get("InitialHeapSize")).isEqualTo(128 * MIB);
    assertThat(flags).containsKeys("UseSerialGC", "TieredStopAtLevel");
  }

  @ParameterizedTest(name = "OUTBOX_RELAY_HEAP={0}: initial heap {1} MiB")
  @CsvSource({"32m, 32", "64m, 64", "128m, 64", "200m, 64"})
  void aSmallerHeapKeepsTheJvmsYoungGenerationAndAnInitialHeapItCanHold(String heap, long initial)
      throws Exception {
    Map<String, Long> flags = flagsWith(heap, null);

    assertThat(flags).doesNotContainKeys("NewSize", "MaxNewSize", "SurvivorRatio");
    assertThat(flags.get("InitialHeapSize")).isEqualTo(initial * MIB);
    assertThat(flags.get("MaxHeapSize")).isGreaterThanOrEqualTo(initial * MIB);
  }

  @ParameterizedTest(name = "OUTBOX_RELAY_JVM_OPTS={0}")
  @ValueSource(strings = {"-XX:+UseParallelGC"})
  void jvmOptionsReplaceTheWholeTuning(String tuning) throws Exception {
    Map<String, Long> flags = flagsWith("256m", tuning);

    assertThat(flags).containsKey("UseParallelGC").doesNotContainKeys("NewSize", "UseSerialGC");
  }

  /**
   * Runs {@code outbox-relay --version} with the JVM printing the flags it was given, and returns
   * them: {@code -XX:Name=value} as a number, {@code -XX:+Name} as 1.
   */
  private static Map<String, Long> flagsWith(String heap, String tuning)
      throws IOException, InterruptedException {
    ProcessBuilder pb =
        new ProcessBuilder(List.of(ProjectFiles.relayLauncher().toString(), "--version"))
            .redirectErrorStream(true);
    pb.environment().put("OUTBOX_RELAY_HEAP", heap);
    pb.environment().put("JAVA_OPTS", "-XX:+PrintCommandLineFlags");
    pb.environment().remove("OUTBOX_RELAY_JVM_OPTS");
    if (tuning != null) {
      pb.environment().put("OUTBOX_RELAY_JVM_OPTS", tuning);
    }
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out).as(out).contains("outbox-relay ");
    String line = out.lines().filter(l -> l.startsWith("-XX:")).findFirst().orElseThrow();
    return Arrays.stream(line.trim().split("\\s+"))
        .filter(f -> f.startsWith("-XX:"))
        .map(f -> f.substring(4))
        .collect(
            Collectors.toMap(
                f -> f.startsWith("+") ? f.substring(1) : f.split("=", 2)[0],
                f -> f.startsWith("+") ? 1L : parse(f),
                (a, b) -> b));
  }

  private static long parse(String flag) {
    String[] kv = flag.split("=", 2);
    return kv.length == 2 && kv[1].matches("\\d+") ? Long.parseLong(kv[1]) : 0L;
  }
}
