package io.outboxrelay.idempotency.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outboxrelay.idempotency.testing.TestDatabase;
import io.outboxrelay.testsupport.stack.KafkaBroker;
import io.outboxrelay.testsupport.stack.LocalStack;
import java.io.File;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * OpenTelemetry is an optional dependency: the consumer loop runs where its classes are absent. The
 * test's own class path has them (test scope), so the loop runs in a class loader over the same
 * class path without the OpenTelemetry jars, which also refuses every {@code io.opentelemetry}
 * class by name; against the real broker and MariaDB.
 */
class ConsumerWithoutOpenTelemetryIT {

  private static final String HIDDEN = "io.opentelemetry.";

  private TestDatabase db;
  private KafkaBroker kafka;
  private String topic;
  private String group;

  @BeforeEach
  void setUp() {
    kafka = LocalStack.shared().kafka();
    db = TestDatabase.mariaDb("idemnootel");
    String unique = Long.toHexString(System.nanoTime());
    topic = "idem-no-otel-" + unique;
    group = "group-no-otel-" + unique;
    kafka.createTopic(topic, 1);
  }

  @AfterEach
  void tearDown() {
    db.close();
  }

  @Test
  void runsTheLoopWithoutNoClassDefFoundErrorWhenTheOpenTelemetryClassesAreAbsent()
      throws Exception {
    publish(
        event("e1", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"),
        event("e2", null),
        event("e1", null));

    Map<String, Object> result;
    try (WithoutOpenTelemetry loader = new WithoutOpenTelemetry()) {
      assertThatThrownBy(() -> Class.forName("io.opentelemetry.api.OpenTelemetry", false, loader))
          .isInstanceOf(ClassNotFoundException.class);
      Class<?> scenario = loader.loadClass(WithoutOpenTelemetryScenario.class.getName());
      assertThat(scenario.getClassLoader()).as("loaded apart from the test").isSameAs(loader);

      result = runIn(loader, scenario);

      assertThat(loader.loaded(KafkaIdempotentConsumer.class.getName())).isTrue();
      assertThat(loader.loaded(OpenTelemetryRecordTracing.class.getName())).isFalse();
      assertThat(loader.refused())
          .as("the loop looked for the API and did without it")
          .contains("io.opentelemetry.api.GlobalOpenTelemetry");
    }

    assertThat(result)
        .containsEntry("openTelemetryVisible", false)
        .containsEntry("processed", 2L)
        .containsEntry("duplicates", 1L)
        .containsEntry("failures", 0L);
    assertThat(db.effects("e1")).isEqualTo(1);
    assertThat(db.effects("e2")).isEqualTo(1);
    assertThat(db.allEffects()).isEqualTo(2);
  }

  @SuppressWarnings("unchecked")
  private Map<String, Object> runIn(ClassLoader loader, Class<?> scenario) throws Exception {
    Function<Map<String, Object>, Map<String, Object>> run =
        (Function<Map<String, Object>, Map<String, Object>>)
            scenario.getConstructor().newInstance();
    Thread thread = Thread.currentThread();
    ClassLoader previous = thread.getContextClassLoader();
    // Kafka loads its configured classes (assignors, deserializers) through the context loader.
    thread.setContextClassLoader(loader);
    try {
      return run.apply(
          Map.of(
              "bootstrapServers",
              kafka.bootstrapServers(),
              "topic",
              topic,
              "group",
              group,
              "dataSource",
              db.dataSource(),
              "expectedProcessed",
              2L));
    } finally {
      thread.setContextClassLoader(previous);
    }
  }

  private ProducerRecord<byte[], byte[]> event(String id, String traceparent) {
    ProducerRecord<byte[], byte[]> record =
        new ProducerRecord<>(topic, bytes("o-1"), bytes("{\"order\":\"" + id + "\"}"));
    record.headers().add("id", bytes(id));
    if (traceparent != null) {
      record.headers().add("traceparent", bytes(traceparent));
    }
    return record;
  }

  @SafeVarargs
  private void publish(ProducerRecord<byte[], byte[]>... records) throws Exception {
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(
            Map.of(
                "bootstrap.servers",
                kafka.bootstrapServers(),
                "acks",
                "all",
                "max.in.flight.requests.per.connection",
                "1"),
            new ByteArraySerializer(),
            new ByteArraySerializer())) {
      for (ProducerRecord<byte[], byte[]> record : records) {
        producer.send(record).get(30, TimeUnit.SECONDS);
      }
    }
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The test's class path without the OpenTelemetry jars, over the platform loader (so nothing
   * comes from the test's own loader), refusing {@code io.opentelemetry} classes by name as well.
   */
  private static final class WithoutOpenTelemetry extends URLClassLoader {

    static {
      registerAsParallelCapable();
    }

    private final Set<String> refused = ConcurrentHashMap.newKeySet();

    WithoutOpenTelemetry() {
      super("without-opentelemetry", classPath(), ClassLoader.getPlatformClassLoader());
    }

    private static URL[] classPath() {
      List<URL> urls = new ArrayList<>();
      for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
        String path = entry.replace(File.separatorChar, '/');
        if (path.contains("/io/opentelemetry/") || path.contains("/opentelemetry-")) {
          continue;
        }
        try {
          urls.add(Path.of(entry).toUri().toURL());
        } catch (MalformedURLException e) {
          throw new IllegalStateException(e);
        }
      }
      return urls.toArray(URL[]::new);
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      if (name.startsWith(HIDDEN)) {
        refused.add(name);
        throw new ClassNotFoundException(name + " is hidden from this class loader");
      }
      return super.loadClass(name, resolve);
    }

    boolean loaded(String name) {
      synchronized (getClassLoadingLock(name)) {
        return findLoadedClass(name) != null;
      }
    }

    Set<String> refused() {
      return refused;
    }
  }
}
