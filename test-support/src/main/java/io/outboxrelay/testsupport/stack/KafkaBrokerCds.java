package io.outboxrelay.testsupport.stack;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A class data sharing archive (AppCDS) for the broker's child JVM: Kafka's and Scala's classes
 * already parsed and verified, which cuts the CPU a broker start takes by almost half (measured
 * with the C1 compiler only on 2 cores under a load of about 20: 1.6 s against 2.9 s of CPU, ready
 * in 2.3-3.8 s against 6.7-8.1 s). Tests start dozens of brokers, so this is worth a file in the
 * temp directory.
 *
 * <p>The archive lives in {@code java.io.tmpdir/outbox-relay-local-stack/}, named by a checksum of
 * the Java installation and of the classpath with each jar's size and modification time, so every
 * test JVM of the machine shares it and a changed jar or Java gets a new one. Where there is none,
 * the first broker start that claims the work (a marker file, so that parallel test JVMs do not
 * repeat it) runs with {@code -XX:DumpLoadedClassList} and, once the broker is ready, builds the
 * archive from that list in a background {@code java -Xshare:dump} at low priority, written under a
 * temporary name and renamed; brokers started meanwhile run without it. Nothing here can fail a
 * broker start: the JVM ignores an archive it cannot map.
 *
 * <p>Thread-safe.
 */
final class KafkaBrokerCds {

  private static final Logger LOG = LoggerFactory.getLogger(KafkaBrokerCds.class);

  /** A claim older than this is taken for abandoned (its JVM died before the dump finished). */
  private static final Duration STALE_CLAIM = Duration.ofMinutes(10);

  private final String classpath;
  private final Path archive;
  private final Path classList;
  private final Path claim;
  private final boolean training;

  private KafkaBrokerCds(String classpath, Path dir, String key, boolean training) {
    this.classpath = classpath;
    this.archive = dir.resolve("kafka-broker-" + key + ".jsa");
    this.classList = dir.resolve("kafka-broker-" + key + ".classlist");
    this.claim = dir.resolve("kafka-broker-" + key + ".building");
    this.training = training;
  }

  /**
   * The archive for a broker classpath, and whether this start should record the classes for it.
   *
   * @param classpath the broker's classpath
   * @return the archive's state for one broker start
   */
  static KafkaBrokerCds forClasspath(String classpath) {
    Path dir = Path.of(System.getProperty("java.io.tmpdir"), "outbox-relay-local-stack");
    String key = key(classpath);
    KafkaBrokerCds probe = new KafkaBrokerCds(classpath, dir, key, false);
    if (Files.exists(probe.archive)) {
      return probe;
    }
    return new KafkaBrokerCds(classpath, dir, key, claim(dir, probe.claim));
  }

  /** The JVM options for this start: the archive, the class list to record, or none. */
  List<String> jvmOptions() {
    if (Files.exists(archive)) {
      return List.of("-XX:SharedArchiveFile=" + archive, "-Xshare:auto");
    }
    if (training) {
      return List.of("-XX:DumpLoadedClassList=" + classList);
    }
    return List.of();
  }

  /**
   * Called once the broker is ready: a start that recorded its classes builds the archive from them
   * in the background.
   */
  void brokerReady() {
    if (!training) {
      return;
    }
    try {
      // Classes loaded until now are what a start needs; the list may end in a half-written line.
      String list = Files.readString(classList, StandardCharsets.UTF_8);
      int lastLine = list.lastIndexOf('\n');
      Path complete = Path.of(classList + ".complete");
      Files.writeString(complete, lastLine < 0 ? "" : list.substring(0, lastLine + 1));
      Path temporary = Path.of(archive + "." + ProcessHandle.current().pid() + ".tmp");
      List<String> dump = new ArrayList<>();
      dump.add(ChildProcess.javaExecutable().toString());
      dump.add("-Xshare:dump");
      dump.add("-Xmx256m");
      dump.add("-XX:SharedClassListFile=" + complete);
      dump.add("-XX:SharedArchiveFile=" + temporary);
      dump.add("-cp");
      dump.add(classpath);
      // A shell, so that the rename happens even if this JVM exits before the dump is done.
      String script =
          "nice -n 19 \"$@\" > "
              + quote(archive + ".log")
              + " 2>&1 && mv -f "
              + quote(temporary.toString())
              + " "
              + quote(archive.toString())
              + "; rm -f "
              + quote(temporary.toString())
              + " "
              + quote(complete.toString())
              + " "
              + quote(classList.toString())
              + " "
              + quote(claim.toString());
      List<String> command = new ArrayList<>(List.of("sh", "-c", script, "sh"));
      command.addAll(dump);
      new ProcessBuilder(command)
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD)
          .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
          .start();
      LOG.info("[kafka cds] building {} in the background", archive);
    } catch (IOException | RuntimeException e) {
      LOG.warn("[kafka cds] cannot build {}: {}", archive, e.toString());
      deleteQuietly(claim);
    }
  }

  private static boolean claim(Path dir, Path claim) {
    try {
      Files.createDirectories(dir);
      try {
        Files.createFile(claim);
        return true;
      } catch (FileAlreadyExistsException e) {
        FileTime since = Files.getLastModifiedTime(claim);
        if (since.toInstant().isBefore(Instant.now().minus(STALE_CLAIM))) {
          Files.deleteIfExists(claim);
          Files.createFile(claim);
          return true;
        }
        return false;
      }
    } catch (IOException e) {
      return false; // another JVM won the race, or the directory is not writable: no archive
    }
  }

  /** A checksum of the Java installation and of each classpath entry with its size and mtime. */
  private static String key(String classpath) {
    CRC32 crc = new CRC32();
    StringBuilder text = new StringBuilder(System.getProperty("java.home"));
    text.append('\n').append(System.getProperty("java.vm.version"));
    for (String entry : classpath.split(File.pathSeparator)) {
      Path path = Path.of(entry);
      text.append('\n').append(entry);
      try {
        text.append(' ').append(Files.size(path));
        text.append(' ').append(Files.getLastModifiedTime(path).toMillis());
      } catch (IOException e) {
        text.append(" missing");
      }
    }
    crc.update(text.toString().getBytes(StandardCharsets.UTF_8));
    return Long.toHexString(crc.getValue());
  }

  private static String quote(String text) {
    return "'" + text.replace("'", "'\\''") + "'";
  }

  private static void deleteQuietly(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException ignored) {
      // a leftover marker only delays the archive until it is stale
    }
  }
}
