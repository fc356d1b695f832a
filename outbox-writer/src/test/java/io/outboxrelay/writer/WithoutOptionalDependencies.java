package io.outboxrelay.writer;

import java.sql.Connection;
import java.sql.Driver;
import java.util.Properties;

/**
 * What {@link WithoutOptionalDependenciesIT} runs in its class loader without OpenTelemetry and
 * Jackson. Plain Java, no test library: it checks by throwing.
 */
public final class WithoutOptionalDependencies {

  private WithoutOptionalDependencies() {}

  /**
   * Checks that OpenTelemetry and Jackson are absent, then appends an event with trace context on
   * and commits it, and checks that an object payload is refused with the writer's own message.
   *
   * @return the event's id
   */
  public static String run(String url, String user, String password) throws Exception {
    for (String name :
        new String[] {
          "io.opentelemetry.context.Context", "com.fasterxml.jackson.databind.ObjectMapper"
        }) {
      try {
        Class.forName(name);
        throw new AssertionError(name + " is visible");
      } catch (ClassNotFoundException expected) {
        // absent, as it should be
      }
    }
    Driver driver =
        (Driver) Class.forName("org.mariadb.jdbc.Driver").getDeclaredConstructor().newInstance();
    Properties properties = new Properties();
    properties.setProperty("user", user);
    properties.setProperty("password", password);
    OutboxWriter writer = OutboxWriter.builder().traceContext(true).build();
    try (Connection c = driver.connect(url, properties)) {
      c.setAutoCommit(false);
      try {
        writer.append(c, NewEvent.of("order", "o-1", "OrderPaid", new Object()));
        throw new AssertionError("an object payload without a serializer was written");
      } catch (InvalidEventException expected) {
        if (!expected.getMessage().contains("no PayloadSerializer")) {
          throw new AssertionError("unexpected message: " + expected.getMessage());
        }
      }
      String id = writer.append(c, NewEvent.of("order", "o-1", "OrderPaid", "{}"));
      c.commit();
      return id;
    }
  }
}
