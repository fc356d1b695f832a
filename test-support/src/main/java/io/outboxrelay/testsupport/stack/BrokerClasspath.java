package io.outboxrelay.testsupport.stack;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The classpath of the broker's child JVM: this module's runtime classpath (Kafka, Scala, log4j2
 * with its slf4j-1 binding), written by maven-dependency-plugin's {@code build-classpath} into the
 * resource {@value #RESOURCE} at build time. Stateless and thread-safe.
 */
final class BrokerClasspath {

  static final String RESOURCE = "kafka-broker.classpath";
  private static final Logger LOG = LoggerFactory.getLogger(BrokerClasspath.class);

  private BrokerClasspath() {}

  /**
   * Reads the classpath resource and checks that every entry exists. Without the resource (the
   * module was compiled by something other than Maven) it falls back to this JVM's classpath.
   *
   * @return the classpath, entries separated by {@code :}
   * @throws LocalStackException if an entry is missing (the local Maven repository changed)
   */
  static String read() {
    try (InputStream in = BrokerClasspath.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        LOG.warn(
            "resource {} is missing (module not built with Maven?); the broker uses this JVM's"
                + " classpath",
            RESOURCE);
        return System.getProperty("java.class.path");
      }
      return check(new String(in.readAllBytes(), StandardCharsets.UTF_8).strip());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + RESOURCE, e);
    }
  }

  static String check(String classpath) {
    List<String> entries =
        Arrays.stream(classpath.split(File.pathSeparator))
            .filter(entry -> !entry.isBlank())
            .collect(Collectors.toList());
    List<String> missing =
        entries.stream()
            .filter(entry -> !Files.exists(Path.of(entry)))
            .collect(Collectors.toList());
    if (entries.isEmpty() || !missing.isEmpty()) {
      throw new LocalStackException(
          "the Kafka broker classpath in "
              + RESOURCE
              + " names missing files "
              + missing
              + ": rebuild test-support (mvn -pl test-support -am install -DskipITs)");
    }
    return String.join(File.pathSeparator, entries);
  }
}
