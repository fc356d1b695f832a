package io.outboxrelay.relay.failure;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.router.RoutingException;
import java.util.EnumSet;
import java.util.concurrent.ExecutionException;
import java.util.stream.Stream;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The one reading of a send's outcome that both sources share, in both directions: each outcome
 * gets its verdict, and each verdict has its outcomes. Only an acknowledged send is ever published.
 */
class SendVerdictTest {

  static Stream<Arguments> outcomes() {
    return Stream.of(
        Arguments.of(null, SendVerdict.PUBLISHED),
        Arguments.of(new TimeoutException("Expiring 1 record(s)"), SendVerdict.RETRY),
        Arguments.of(new KafkaException("unknown"), SendVerdict.RETRY),
        Arguments.of(new NetworkException("connection lost"), SendVerdict.UNAVAILABLE),
        Arguments.of(new NotLeaderOrFollowerException("moved"), SendVerdict.UNAVAILABLE),
        Arguments.of(new RecordTooLargeException("too large"), SendVerdict.DEAD),
        Arguments.of(new TopicAuthorizationException("no write"), SendVerdict.DEAD),
        Arguments.of(new RoutingException("illegal topic"), SendVerdict.DEAD),
        Arguments.of(new ClusterAuthorizationException("denied"), SendVerdict.STOP),
        Arguments.of(
            new ExecutionException(new ClusterAuthorizationException("denied")), SendVerdict.STOP));
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @MethodSource("outcomes")
  void readsEachOutcome(Throwable error, SendVerdict expected) {
    assertThat(SendVerdict.of(error)).isEqualTo(expected);
  }

  @Test
  void everyVerdictHasItsOutcomes() {
    Tables.assertEveryValueIsReached(outcomes(), SendVerdict.class);
  }

  @Test
  void onlyAFailureThatMayPassIsSentAgain() {
    assertThat(EnumSet.allOf(SendVerdict.class).stream().filter(SendVerdict::sendsAgain))
        .containsExactlyInAnyOrder(SendVerdict.RETRY, SendVerdict.UNAVAILABLE);
  }

  @Test
  void aStopAlwaysStopsTheRestAndPoisonOnlyWhenPoisonStopsTheRelay() {
    assertThat(SendVerdict.STOP.stopsTheRest(false)).isTrue();
    assertThat(SendVerdict.STOP.stopsTheRest(true)).isTrue();
    assertThat(SendVerdict.DEAD.stopsTheRest(true)).isTrue();
    assertThat(SendVerdict.DEAD.stopsTheRest(false)).isFalse();
    for (SendVerdict v :
        EnumSet.of(SendVerdict.PUBLISHED, SendVerdict.RETRY, SendVerdict.UNAVAILABLE)) {
      assertThat(v.stopsTheRest(true)).as(v.name()).isFalse();
      assertThat(v.stopsTheRest(false)).as(v.name()).isFalse();
    }
  }
}
