package io.outboxrelay.testsupport.stack;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Initialised MariaDB datadirs, one per JVM and set of extra {@code my.cnf} options, that new
 * servers copy instead of each running {@code mariadb-install-db} (seconds on a busy 2-core host;
 * the copy takes a tenth of a second). Deleted when the JVM exits.
 *
 * <p>What the installer writes does not depend on the port, the paths, {@code server_id}, the
 * buffer pool or the binlog settings: it runs in bootstrap mode, which writes no binlog, and the
 * files of the system tables hold no path or identity of the server (MariaDB has no server UUID).
 * Extra options may change it (e.g. {@code lower_case_table_names}), so they choose the template.
 *
 * <p>Thread-safe: the first server of each kind initialises the template while others wait.
 */
final class MariaDbTemplates {

  private static final Logger LOG = LoggerFactory.getLogger(MariaDbTemplates.class);
  private static final Map<Map<String, String>, Path> TEMPLATES = new HashMap<>();
  private static boolean cleanupRegistered;

  private MariaDbTemplates() {}

  /**
   * Fills an empty datadir with a copy of the template for these settings, initialising the
   * template first if this JVM has none yet. The copy keeps the template's sparse files sparse (the
   * redo log is 96 MiB of mostly zeros) and its owners.
   *
   * @param settings the new server's settings: their extra options choose the template
   * @param binaries the MariaDB programs
   * @param dataDir the new server's empty datadir
   * @throws LocalStackException if initialising the template or copying it fails
   */
  static void copyInto(MariaDbSettings settings, MariaDbBinaries binaries, Path dataDir) {
    Path template = template(settings, binaries);
    Commands.runOrFail(
        List.of("cp", "-a", "--sparse=always", template + "/.", dataDir.toString()),
        settings.startupTimeout());
  }

  private static synchronized Path template(MariaDbSettings settings, MariaDbBinaries binaries) {
    Map<String, String> key = new LinkedHashMap<>(settings.extraOptions());
    Path template = TEMPLATES.get(key);
    if (template != null) {
      return template;
    }
    if (!cleanupRegistered) {
      Runtime.getRuntime()
          .addShutdownHook(new Thread(MariaDbTemplates::deleteAll, "mariadb-templates-cleanup"));
      cleanupRegistered = true;
    }
    Path base = Dirs.createTempDir("mariadb-template-");
    MariaDbSettings templateSettings =
        new MariaDbSettings(
            base,
            0,
            settings.serverId(),
            settings.binlog(),
            settings.binlogFormat(),
            settings.binlogRowImage(),
            settings.bufferPoolSize(),
            settings.extraOptions(),
            settings.startupTimeout(),
            Duration.ofSeconds(30));
    MariaDbLayout layout = MariaDbLayout.forBaseDir(base);
    long begin = System.nanoTime();
    try {
      new MariaDbLauncher(templateSettings, layout, binaries, "[mariadb template]").initialise();
    } catch (RuntimeException e) {
      Dirs.deleteRecursively(base);
      deleteSocketDir(layout);
      throw e;
    }
    deleteSocketDir(layout);
    LOG.info(
        "[mariadb template] initialised {} in {} ms (extra options {})",
        layout.dataDir(),
        (System.nanoTime() - begin) / 1_000_000,
        key);
    TEMPLATES.put(key, layout.dataDir());
    return layout.dataDir();
  }

  private static void deleteSocketDir(MariaDbLayout layout) {
    if (layout.separateSocketDir()) {
      Dirs.deleteRecursively(layout.socketDir());
    }
  }

  private static synchronized void deleteAll() {
    for (Path dataDir : TEMPLATES.values()) {
      try {
        Dirs.deleteRecursively(dataDir.getParent());
      } catch (RuntimeException e) {
        LOG.warn("[mariadb template] cannot delete {}: {}", dataDir.getParent(), e.toString());
      }
    }
    TEMPLATES.clear();
  }
}
