package io.outboxrelay.writer;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The writer works without its optional dependencies: {@link WithoutOptionalDependencies} runs in a
 * class loader whose classpath is this test's less every OpenTelemetry and Jackson jar, with the
 * platform class loader as its parent, so those classes are really absent.
 */
class WithoutOptionalDependenciesIT {

  private WriterDatabase db;

  @BeforeEach
  void setUp() {
    db = WriterDatabase.mariaDb();
  }

  @AfterEach
  void tearDown() {
    db.close();
  }

  @Test
  void appendsEventsWithoutOpenTelemetryOrJacksonOnTheClasspath() throws Exception {
    String classpath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<URL> urls = new ArrayList<>();
    List<String> hidden = new ArrayList<>();
    for (String entry : classpath.split(File.pathSeparator)) {
      if (entry.contains("opentelemetry") || entry.contains("jackson")) {
        hidden.add(entry);
      } else {
        urls.add(new File(entry).toURI().toURL());
      }
    }
    assertThat(hidden).as("the test classpath has both").anyMatch(e -> e.contains("opentelemetry"));
    assertThat(hidden).anyMatch(e -> e.contains("jackson-databind"));

    String id;
    try (URLClassLoader isolated =
        new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
      Class<?> run = Class.forName(WithoutOptionalDependencies.class.getName(), true, isolated);
      assertThat(run.getClassLoader()).isSameAs(isolated);
      id =
          (String)
              run.getMethod("run", String.class, String.class, String.class)
                  .invoke(null, db.jdbcUrl(), db.user(), db.password());
    }

    Map<String, Object> row = db.row(id);
    assertThat(row).containsEntry("event_type", "OrderPaid").containsEntry("payload", "{}");
    assertThat(row.get("headers")).isNull();
  }
}
