package io.outboxrelay.testsupport.stack;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Formatted KRaft storage directories, one per JVM and set of broker properties, that new brokers
 * copy instead of each running {@code kafka.tools.StorageTool format} in a JVM of its own (about
 * 2.5 s, more on a busy host), with the tool's {@code format.out} and {@code format.log}. Deleted
 * when the JVM exits.
 *
 * <p>The format tool writes {@code meta.properties} (node id, cluster id, directory id) and {@code
 * bootstrap.checkpoint} (the metadata version and features); neither depends on the ports or the
 * directory (checked: two formats at other ports differ only in the checkpoint's timestamp). Each
 * copy gets a cluster id and a directory id of its own, as a format of its own would give it.
 *
 * <p>Thread-safe: the first broker of each kind formats the template while others wait.
 */
final class KafkaStorageTemplates {

  private static final Logger LOG = LoggerFactory.getLogger(KafkaStorageTemplates.class);

  /** Properties that differ per broker without changing what the format tool writes. */
  private static final List<String> PER_BROKER =
      List.of("listeners", "advertised.listeners", "controller.quorum.voters", "log.dirs");

  /** The format tool's stdout and log, next to {@code log.dirs}. */
  private static final List<String> FORMAT_LOGS = List.of("format.out", "format.log");

  private static final Map<Map<String, String>, Path> TEMPLATES = new HashMap<>();
  private static boolean cleanupRegistered;

  private KafkaStorageTemplates() {}

  /**
   * Fills a broker's empty {@code log.dirs} with a copy of the formatted template for its
   * properties, formatting the template first if this JVM has none yet.
   *
   * @param config the broker's configuration
   * @param logDirs its {@code log.dirs}
   * @param formatter formats a template directory (its {@code log.dirs}) with the given config
   * @throws LocalStackException if formatting or copying fails
   */
  static void copyInto(KafkaBrokerConfig config, Path logDirs, Formatter formatter) {
    Path template = template(config, formatter);
    try {
      Dirs.createDirectories(logDirs);
      try (Stream<Path> files = Files.list(template)) {
        for (Path file : (Iterable<Path>) files::iterator) {
          Files.copy(file, logDirs.resolve(file.getFileName()));
        }
      }
      // The format tool's output beside the storage, as if it had run there.
      for (String log : FORMAT_LOGS) {
        Path source = template.resolveSibling(log);
        if (Files.exists(source)) {
          Files.copy(source, logDirs.resolveSibling(log), StandardCopyOption.REPLACE_EXISTING);
        }
      }
      Path meta = logDirs.resolve("meta.properties");
      Properties properties = new Properties();
      try (InputStream in = Files.newInputStream(meta)) {
        properties.load(in);
      }
      properties.setProperty("cluster.id", Uuid.randomUuid().toString());
      if (properties.containsKey("directory.id")) {
        properties.setProperty("directory.id", Uuid.randomUuid().toString());
      }
      try (OutputStream out = Files.newOutputStream(meta)) {
        properties.store(out, null);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot copy the formatted storage into " + logDirs, e);
    }
  }

  /** Formats a template storage directory. */
  @FunctionalInterface
  interface Formatter {
    /**
     * Formats {@code config}'s {@code log.dirs}.
     *
     * @param config a configuration whose {@code log.dirs} is the template
     * @param dir where the configuration file and the format logs may go
     */
    void format(KafkaBrokerConfig config, Path dir);
  }

  private static synchronized Path template(KafkaBrokerConfig config, Formatter formatter) {
    Map<String, String> key = new TreeMap<>(config.properties());
    PER_BROKER.forEach(key::remove);
    Path template = TEMPLATES.get(key);
    if (template != null) {
      return template;
    }
    if (!cleanupRegistered) {
      Runtime.getRuntime()
          .addShutdownHook(new Thread(KafkaStorageTemplates::deleteAll, "kafka-templates-cleanup"));
      cleanupRegistered = true;
    }
    Path dir = Dirs.createTempDir("kafka-template-");
    Path logDirs = KafkaBrokerLauncher.logDirs(dir);
    try {
      formatter.format(config.withLogDirs(logDirs), dir);
    } catch (RuntimeException e) {
      Dirs.deleteRecursively(dir);
      throw e;
    }
    LOG.info("[kafka template] formatted {}", logDirs);
    TEMPLATES.put(key, logDirs);
    return logDirs;
  }

  private static synchronized void deleteAll() {
    for (Path logDirs : TEMPLATES.values()) {
      try {
        Dirs.deleteRecursively(logDirs.getParent());
      } catch (RuntimeException e) {
        LOG.warn("[kafka template] cannot delete {}: {}", logDirs.getParent(), e.toString());
      }
    }
    TEMPLATES.clear();
  }
}
