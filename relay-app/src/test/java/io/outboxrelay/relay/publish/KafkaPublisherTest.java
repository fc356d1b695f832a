package io.outboxrelay.relay.publish;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.router.RoutedRecord;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class KafkaPublisherTest {

  @Test
  void aProducerThatCannotBeCreatedFailsEveryRecordAsKafkaUnavailable() throws Exception {
    KafkaPublisher publisher =
        new KafkaPublisher(
            () -> {
              throw new KafkaException(
                  "Failed to construct kafka producer",
                  new ConfigException("No resolvable bootstrap urls given in bootstrap.servers"));
            },
            "test");
    RoutedRecord record =
        new RoutedRecord(
            "t",
            "k".getBytes(StandardCharsets.UTF_8),
            List.of(),
            "v".getBytes(StandardCharsets.UTF_8));

    List<KafkaPublisher.Outcome> outcomes =
        publisher.sendAll(List.of(record, record), null, () -> false);

    assertThat(outcomes)
        .hasSize(2)
        .allSatisfy(
            o -> {
              assertThat(o.acknowledged()).isFalse();
              assertThat(o.error()).isInstanceOf(KafkaUnavailableException.class);
              assertThat(ErrorClassifier.classify(o.error())).isEqualTo(Disposition.UNAVAILABLE);
              assertThat(ErrorClassifier.describe(o.error()))
                  .contains("cannot create the Kafka producer")
                  .contains("No resolvable bootstrap urls");
            });
  }
}
