package io.outboxrelay.relay.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.outboxrelay.testsupport.stack.ProjectFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The distribution's launcher, {@code bin/outbox-relay}: the heap and young generation it gives the
 * JVM for each {@code OUTBOX_RELAY_HEAP}, read back from the JVM's own flags; and the class data
 * sharing archive in a copy of {@code dist.tar.gz} unpacked elsewhere, proved mapped by the JVM
 * itself ({@code -Xshare:on} fails a start whose archive does not fit, and {@code -Xlog:class+load}
 * names where each class came from).
 */
class LauncherIT {

  private static final long MIB = 1024 * 1024;

  /** The JVM's log line of the main class loaded from a CDS archive rather than its jar. */
  private static final String MAIN_FROM_ARCHIVE =
      "io.outboxrelay.relay.cli.OutboxRelayCli source: shared objects file";

  /**
   * The user a read-only install is run as, when the tests run as root (who can write anything).
   */
  private static final int NOBODY = 65534;

  private static final boolean ROOT = "root".equals(System.getProperty("user.name"));

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

  @Test
  void aCopyUnpackedElsewhereMapsTheArchiveFromItsFirstStart(@TempDir Path dir) throws Exception {
    Path home = unpack(dir);
    List<String> lib = list(home.resolve("lib"));
    assertThat(lib).anyMatch(f -> f.matches("outbox-relay-[0-9]+\\.jsa"));

    for (int start = 1; start <= 2; start++) {
      Run run = version(home, Map.of(), false);

      assertThat(run.exitCode()).as(run.output()).isZero();
      assertThat(run.output()).contains(MAIN_FROM_ARCHIVE).doesNotContain("class data sharing");
    }
    assertThat(list(home.resolve("lib"))).isEqualTo(lib);
  }

  @Test
  void aCopyWithoutAnArchiveForItsJavaBuildsOneInTheBackgroundOnceForItsNextStarts(
      @TempDir Path dir) throws Exception {
    Path home = unpack(dir);
    String archive = removeArchive(home); // as where the relay runs on another Java build

    // Two first starts at once: each starts without, one build runs, and it is not corrupted.
    ProcessBuilder first = launch(home, Map.of(), false);
    Process a = first.start();
    Process b = first.start();
    for (Process p : List.of(a, b)) {
      Run run = finish(p);
      assertThat(run.exitCode()).as(run.output()).isZero();
      assertThat(run.output()).doesNotContain(MAIN_FROM_ARCHIVE);
    }
    awaitBuilt(home.resolve("lib"), archive);
    assertThat(list(home.resolve("lib")))
        .filteredOn(f -> f.endsWith(".jsa"))
        .containsExactly(archive);

    for (int start = 1; start <= 2; start++) {
      Run run = version(home, Map.of(), false);

      assertThat(run.exitCode()).as(run.output()).isZero();
      assertThat(run.output()).contains(MAIN_FROM_ARCHIVE).doesNotContain("class data sharing");
    }
  }

  @Test
  void aReadOnlyInstallStartsAndBuildsItsArchiveInOutboxRelayCdsDir(@TempDir Path dir)
      throws Exception {
    Path home = unpack(dir);
    Path cache = Files.createDirectory(dir.resolve("cache"));
    try {
      readOnly(home, cache);
      Run packed = version(home, Map.of(), true);
      assertThat(packed.exitCode()).as(packed.output()).isZero();
      assertThat(packed.output()).contains(MAIN_FROM_ARCHIVE);

      String archive = removeArchive(home);
      List<String> lib = list(home.resolve("lib"));
      Run without = version(home, Map.of(), true);
      assertThat(without.exitCode()).as(without.output()).isZero();
      assertThat(without.output())
          .doesNotContain(MAIN_FROM_ARCHIVE)
          .contains("is not writable", "OUTBOX_RELAY_CDS_DIR");
      assertThat(list(home.resolve("lib"))).isEqualTo(lib);

      Map<String, String> cacheDir = Map.of("OUTBOX_RELAY_CDS_DIR", cache.toString());
      Run building = version(home, cacheDir, true);
      assertThat(building.exitCode()).as(building.output()).isZero();
      assertThat(building.output()).contains("building " + cache.resolve(archive));
      awaitBuilt(cache, archive);
      Run next = version(home, cacheDir, true);
      assertThat(next.exitCode()).as(next.output()).isZero();
      assertThat(next.output()).contains(MAIN_FROM_ARCHIVE);
    } finally {
      if (!ROOT) {
        chmod("-R", "u+w", home.toString());
      }
    }
  }

  @Test
  void theClassPathGoesThroughDescriptor9UnlessTheCallerLeftOneOpen(@TempDir Path dir)
      throws Exception {
    Path launcher = ProjectFiles.relayLauncher();
    Path home = launcher.getParent().getParent().toAbsolutePath().normalize();
    Path lock = Files.createFile(dir.resolve("lock"));

    assertThat(classPath(launcher, null)).startsWith("/dev/fd/9/lib/");
    assertThat(classPath(launcher, lock)).startsWith(home + "/lib/").doesNotContain("/dev/fd/");
  }

  /** The JVM's class path as the launcher sets it, started with {@code open} on descriptor 9. */
  private static String classPath(Path launcher, Path open) throws Exception {
    String script = (open == null ? "" : "exec 9<\"$1\"; ") + "exec \"$0\" --version";
    ProcessBuilder pb =
        new ProcessBuilder(
                "bash", "-c", script, launcher.toString(), open == null ? "" : open.toString())
            .redirectErrorStream(true);
    pb.environment().keySet().removeIf(k -> k.startsWith("OUTBOX_RELAY_"));
    pb.environment().put("JAVA_OPTS", "-XshowSettings:properties");
    Run run = finish(pb.start());
    assertThat(run.exitCode()).as(run.output()).isZero();
    return run.output()
        .lines()
        .filter(l -> l.trim().startsWith("java.class.path = "))
        .map(l -> l.trim().substring("java.class.path = ".length()))
        .findFirst()
        .orElseThrow();
  }

  /** The test's copy of {@code dist.tar.gz}, unpacked by tar into {@code dir}. */
  private static Path unpack(Path dir) throws Exception {
    String tarball = System.getProperty("outbox.relay.tarball", "");
    assumeTrue(
        !tarball.isEmpty() && Files.isRegularFile(Path.of(tarball)),
        "SKIPPED: no dist.tar.gz named by -Doutbox.relay.tarball (the build passes it)");
    // Readable by the user a read-only install runs as (a temporary directory is not).
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    Process tar = new ProcessBuilder("tar", "-xzf", tarball, "-C", dir.toString()).start();
    assertThat(finish(tar).exitCode()).isZero();
    return dir.resolve("outbox-relay");
  }

  /** Removes the packed archive of {@code home}, read-only or not; returns its name. */
  private static String removeArchive(Path home) throws Exception {
    Path lib = home.resolve("lib");
    String archive =
        list(lib).stream()
            .filter(f -> f.matches("outbox-relay-[0-9]+\\.jsa"))
            .findFirst()
            .orElseThrow();
    boolean readOnly = !Files.isWritable(lib);
    if (readOnly) {
      chmod("u+w", lib.toString());
    }
    Files.delete(lib.resolve(archive));
    if (readOnly) {
      chmod("a-w", lib.toString());
    }
    return archive;
  }

  /** Makes {@code home} read-only for the launcher, and {@code cache} writable. */
  private static void readOnly(Path home, Path cache) throws Exception {
    if (ROOT) {
      Files.setAttribute(cache, "unix:uid", NOBODY);
    } else {
      chmod("-R", "a-w", home.toString());
    }
  }

  private static void chmod(String... args) throws Exception {
    List<String> command = new java.util.ArrayList<>(List.of("chmod"));
    command.addAll(List.of(args));
    assertThat(finish(new ProcessBuilder(command).start()).exitCode()).isZero();
  }

  /** Waits for the background build to have renamed {@code archive} into place and finished. */
  private static void awaitBuilt(Path dir, String archive) {
    await()
        .atMost(Duration.ofMinutes(5))
        .pollInterval(Duration.ofSeconds(1))
        .until(
            () ->
                Files.isRegularFile(dir.resolve(archive))
                    && list(dir).stream().noneMatch(f -> f.contains(".tmp")));
  }

  private static List<String> list(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(f -> f.getFileName().toString()).sorted().toList();
    }
  }

  /**
   * The launcher of {@code home} with {@code --version}, the JVM logging where classes come from.
   */
  private static ProcessBuilder launch(Path home, Map<String, String> env, boolean readOnly) {
    List<String> command = new java.util.ArrayList<>();
    if (readOnly && ROOT) {
      command.addAll(
          List.of("setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups", "--"));
    }
    command.addAll(List.of(home.resolve("bin/outbox-relay").toString(), "--version"));
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().keySet().removeIf(k -> k.startsWith("OUTBOX_RELAY_") || k.equals("JAVA_OPTS"));
    pb.environment().put("JAVA_OPTS", "-Xshare:on -Xlog:class+load=info");
    pb.environment().putAll(env);
    return pb;
  }

  private static Run version(Path home, Map<String, String> env, boolean readOnly)
      throws Exception {
    return finish(launch(home, env, readOnly).start());
  }

  /** A finished process: its exit code and its output. */
  private record Run(int exitCode, String output) {}

  private static Run finish(Process p) throws IOException, InterruptedException {
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    return new Run(p.exitValue(), out);
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
