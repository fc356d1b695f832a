package io.outboxrelay.connect;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/**
 * What a Connect worker of these tests is made of, from the files the build prepares (failsafe
 * passes their locations as system properties): the worker's classpath, Debezium's MariaDB
 * connector plugin, this module's plugin archive, and the connector that publishes the outbox table
 * through the transform. Stateless.
 */
final class ConnectTestFiles {

  private ConnectTestFiles() {}

  /**
   * Unpacks the plugin archive {@code mvn package} built into {@code <dir>/plugins}, checking it
   * holds only the transform's, the change reader's and the router's jars.
   *
   * @return the plugin.path directory that holds it
   */
  static Path unpackTransformPlugin(Path dir) throws IOException {
    Path archive = Path.of(requiredProperty("outbox.connect.plugin.zip"));
    Path pluginPath = Files.createDirectories(dir.resolve("plugins"));
    try (InputStream in = Files.newInputStream(archive);
        ZipInputStream zip = new ZipInputStream(in)) {
      for (ZipEntry entry; (entry = zip.getNextEntry()) != null; ) {
        Path target = pluginPath.resolve(entry.getName()).normalize();
        assertThat(target.startsWith(pluginPath))
            .as("%s inside the plugin directory", target)
            .isTrue();
        if (entry.isDirectory()) {
          Files.createDirectories(target);
        } else {
          Files.createDirectories(target.getParent());
          Files.copy(zip, target);
        }
      }
    }
    try (var files = Files.walk(pluginPath)) {
      assertThat(files.map(p -> p.getFileName().toString()).filter(f -> f.endsWith(".jar")))
          .as("the plugin archive's jars")
          .hasSize(3)
          .allMatch(
              f ->
                  f.startsWith("outbox-connect-transform-")
                      || f.startsWith("outbox-change-reader-")
                      || f.startsWith("outbox-event-router-"));
    }
    return pluginPath;
  }

  /** The plugin.path directory that holds Debezium's MariaDB connector plugin. */
  static Path debeziumPluginPath() {
    return Path.of(requiredProperty("outbox.connect.debezium.plugin")).getParent();
  }

  /** Connect and its libraries, without this project's classes and without Debezium. */
  static String workerClasspath() throws IOException {
    String classpath =
        Files.readString(Path.of(requiredProperty("outbox.connect.worker.classpath"))).strip();
    assertThat(classpath.split(":"))
        .extracting(e -> Path.of(e).getFileName().toString())
        .as("the worker's classpath")
        .noneMatch(f -> f.startsWith("outbox-") || f.startsWith("debezium-"))
        .anyMatch(f -> f.startsWith("connect-runtime-"));
    return classpath;
  }

  /**
   * Debezium's MariaDB connector on the outbox table with the transform, as docs/kafka-connect.md
   * shows it.
   *
   * @param name the connector's name and {@code topic.prefix}
   * @param topicTemplate the transform's {@code router.topic.template}
   * @return the connector's configuration, in a mutable map
   */
  static Map<String, String> outboxConnector(
      OutboxDatabase db, String name, String topicTemplate, String bootstrap) {
    Map<String, String> config = new LinkedHashMap<>();
    config.put("connector.class", "io.debezium.connector.mariadb.MariaDbConnector");
    config.put("tasks.max", "1");
    config.put("database.hostname", db.host());
    config.put("database.port", String.valueOf(db.port()));
    config.put("database.user", db.relayUser());
    config.put("database.password", db.password());
    config.put(
        "database.server.id",
        String.valueOf(ThreadLocalRandom.current().nextInt(1_000_000, 2_000_000)));
    config.put("topic.prefix", name);
    config.put("database.include.list", db.name());
    config.put("table.include.list", db.name() + ".outbox_events");
    config.put(
        "column.include.list",
        db.name()
            + "\\.outbox_events\\.(id|event_id|aggregate_type|aggregate_id|event_type|payload"
            + "|aggregate_version|headers|tracingspancontext)");
    config.put("snapshot.mode", "no_data");
    config.put("snapshot.locking.mode", "none");
    config.put("include.schema.changes", "false");
    config.put("schema.history.internal.kafka.bootstrap.servers", bootstrap);
    config.put("schema.history.internal.kafka.topic", name + ".schema-history");
    config.put("key.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
    config.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
    config.put("header.converter", "org.apache.kafka.connect.storage.StringConverter");
    config.put("transforms", "outbox");
    config.put("transforms.outbox.type", OutboxRouterTransform.class.getName());
    config.put("transforms.outbox.router.topic.template", topicTemplate);
    return config;
  }

  private static String requiredProperty(String key) {
    String value = System.getProperty(key);
    if (value == null) {
      throw new IllegalStateException(
          key + " is not set: run this test with Maven (failsafe sets it), after mvn package");
    }
    return value;
  }
}
