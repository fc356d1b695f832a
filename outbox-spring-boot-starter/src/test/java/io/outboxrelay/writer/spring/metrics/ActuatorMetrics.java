package io.outboxrelay.writer.spring.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.util.List;
import org.springframework.context.ApplicationContext;

/** Reads a meter as Actuator's metrics endpoint answers for it, in a test application. */
public final class ActuatorMetrics {

  private ActuatorMetrics() {}

  /**
   * The COUNT statistic Actuator's metrics endpoint answers for a meter and tags, as {@code GET
   * /actuator/metrics/{name}?tag=k:v} does. The endpoint's class is in another package on Boot 3
   * than on Boot 4, hence reflection on the bean; the application must expose the endpoint ({@code
   * management.endpoints.web.exposure.include=metrics}).
   *
   * @param app the application
   * @param name the meter
   * @param tags {@code key:value} each
   * @return the count
   * @throws Exception if the endpoint cannot be called
   */
  public static double count(ApplicationContext app, String name, String... tags) throws Exception {
    Object endpoint = app.getBean("metricsEndpoint");
    Method metric = endpoint.getClass().getMethod("metric", String.class, List.class);
    Object descriptor = metric.invoke(endpoint, name, List.of(tags));
    assertThat(descriptor).as("%s %s at the metrics endpoint", name, List.of(tags)).isNotNull();
    List<?> samples =
        (List<?>) descriptor.getClass().getMethod("getMeasurements").invoke(descriptor);
    for (Object sample : samples) {
      Object statistic = sample.getClass().getMethod("getStatistic").invoke(sample);
      if (statistic.toString().equals("COUNT")) {
        return (Double) sample.getClass().getMethod("getValue").invoke(sample);
      }
    }
    throw new AssertionError("no COUNT for " + name + " " + List.of(tags) + ": " + samples);
  }
}
