package io.outboxrelay.relay.failure;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.relay.testing.UpstreamClass;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarFile;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * Pins every text the relay matches in a message of Debezium or Kafka: each must still occur in the
 * class that emits it, read from that class's constants in the jar on the classpath. A library
 * upgrade that rewords or moves a message fails here instead of silently letting a line through the
 * log filters or a failure past its classification. What to do then is in docs/upgrading.md,
 * "Upgrading Debezium or Kafka".
 */
class UpstreamMessageTextsTest {

  private static final String FILTERED_PREFIXES = "io.debezium|com.github.shyiko|org.apache.kafka";

  @Test
  void everyLogFilterOfTheRelayStillMatchesAMessageOfItsLogger() throws Exception {
    List<Element> filtered = new ArrayList<>();
    NodeList loggers = log4jConfig().getElementsByTagName("Logger");
    for (int i = 0; i < loggers.getLength(); i++) {
      Element logger = (Element) loggers.item(i);
      NodeList filters = logger.getElementsByTagName("RegexFilter");
      if (filters.getLength() > 0) {
        filtered.add(logger);
        String className = logger.getAttribute("name");
        Element filter = (Element) filters.item(0);
        assertThat(filter.getAttribute("useRawMsg"))
            .as("the filter of %s matches the message pattern, as the constants hold it", className)
            .isEqualTo("true");
        UpstreamClass emitter = UpstreamClass.of(className);
        for (String alternative : alternatives(filter.getAttribute("regex"))) {
          Pattern message = Pattern.compile("(?s)" + alternative + ".*");
          assertThat(emitter.strings().stream().anyMatch(s -> message.matcher(s).matches()))
              .as(
                  "no message of %s (%s) matches '%s' of log4j2.xml any longer: find the message"
                      + " this version logs instead and filter that",
                  className, emitter.location(), alternative)
              .isTrue();
        }
      }
    }
    assertThat(filtered).as("log4j2.xml filters Debezium's messages").hasSizeGreaterThan(4);
  }

  @Test
  void everyThirdPartyLoggerTheRelayConfiguresStillExists() throws Exception {
    NodeList loggers = log4jConfig().getElementsByTagName("Logger");
    for (int i = 0; i < loggers.getLength(); i++) {
      String name = ((Element) loggers.item(i)).getAttribute("name");
      if (name.matches("(" + FILTERED_PREFIXES + ")(\\..*)?")) {
        assertThat(isClass(name) || isPackage(name))
            .as(
                "log4j2.xml sets the level of %s, which is no longer a class or package: its lines"
                    + " (payloads, or a line per retry) would be logged again",
                name)
            .isTrue();
      }
    }
  }

  @Test
  void theStoredPositionCheckStillSaysThePositionIsGone() {
    // ErrorClassifier.isBinlogPositionUnavailable: Debezium's check carries no error code.
    assertHolds("io.debezium.connector.common.BaseSourceTask", ErrorClassifier.POSITION_PURGED);
  }

  @Test
  void theUnknownSchemaCheckStillSaysSo() {
    // ErrorClassifier.isSchemaUnknown, and CdcSource's message naming the schema history.
    assertHolds(
        "io.debezium.connector.binlog.BinlogStreamingChangeEventSource",
        ErrorClassifier.SCHEMA_UNKNOWN);
  }

  @Test
  void theEngineStillRefusesToCloseWhileItsTasksStart() {
    // EngineRun.closeEngine retries close() while the message says the tasks are starting.
    assertHolds(
        "io.debezium.embedded.async.AsyncEmbeddedEngine",
        "Cannot stop engine while tasks are starting");
  }

  private static void assertHolds(String className, String text) {
    UpstreamClass emitter = UpstreamClass.of(className);
    assertThat(emitter.holdsText(text))
        .as(
            "%s (%s) no longer says '%s': find what this version says instead and match that",
            className, emitter.location(), text)
        .isTrue();
  }

  private static Element log4jConfig() throws Exception {
    try (InputStream in = UpstreamMessageTextsTest.class.getResourceAsStream("/log4j2.xml")) {
      assertThat(in).as("the relay's log4j2.xml").isNotNull();
      return DocumentBuilderFactory.newInstance()
          .newDocumentBuilder()
          .parse(in)
          .getDocumentElement();
    }
  }

  /** The alternatives of {@code (?s)(a|b|c).*} or {@code (?s)a.*}. */
  static List<String> alternatives(String regex) {
    String r = regex.replaceFirst("^\\(\\?s\\)", "").replaceFirst("\\.\\*$", "");
    if (!r.startsWith("(")) {
      return List.of(r);
    }
    List<String> out = new ArrayList<>();
    int depth = 0;
    int start = 1;
    for (int i = 1; i < r.length(); i++) {
      char c = r.charAt(i);
      if (c == '\\') {
        i++;
      } else if (c == '(') {
        depth++;
      } else if (c == ')' && depth > 0) {
        depth--;
      } else if ((c == '|' || c == ')') && depth == 0) {
        out.add(r.substring(start, i));
        start = i + 1;
        if (c == ')') {
          break;
        }
      }
    }
    return out;
  }

  private static boolean isClass(String name) {
    return UpstreamMessageTextsTest.class
            .getClassLoader()
            .getResource(name.replace('.', '/') + ".class")
        != null;
  }

  /** Whether a jar or directory on the classpath holds classes under this package. */
  private static boolean isPackage(String name) throws IOException {
    String dir = name.replace('.', '/') + "/";
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      File f = new File(entry);
      if (f.isDirectory() ? new File(f, dir).isDirectory() : jarHolds(f, dir)) {
        return true;
      }
    }
    return false;
  }

  private static boolean jarHolds(File jar, String dir) throws IOException {
    if (!jar.getName().endsWith(".jar") || !jar.isFile()) {
      return false;
    }
    try (JarFile j = new JarFile(jar)) {
      return j.stream().anyMatch(e -> e.getName().startsWith(dir));
    }
  }
}
