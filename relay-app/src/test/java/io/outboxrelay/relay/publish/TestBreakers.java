package io.outboxrelay.relay.publish;

import java.time.Clock;
import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Breakers for the unit tests of the sources, whose Kafka answers as the test says. */
public final class TestBreakers {

  private TestBreakers() {}

  /**
   * A started breaker, already closed, whose metadata request finds Kafka answering while {@code
   * kafkaAnswers} says so; it probes every 5 ms while open.
   *
   * @param kafkaAnswers asked at every probe
   * @return the breaker; the test closes it
   */
  public static KafkaBreaker answeringWhile(BooleanSupplier kafkaAnswers) {
    KafkaBreaker breaker =
        new KafkaBreaker(
            new KafkaBreaker.Probe() {
              @Override
              public String check(Duration timeout) {
                return kafkaAnswers.getAsBoolean() ? null : "connection refused";
              }

              @Override
              public void close() {}
            },
            "test",
            "mock:9092",
            "waiting",
            Duration.ofMillis(5),
            Clock.systemUTC());
    breaker.start();
    try {
      breaker.awaitClosed(() -> true);
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
    return breaker;
  }
}
