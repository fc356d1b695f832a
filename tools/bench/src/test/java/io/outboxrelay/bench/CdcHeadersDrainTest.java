package io.outboxrelay.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outboxrelay.router.ApplicationHeaders;
import io.outboxrelay.router.RecordHeader;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The headers the CDC drain writes are what the relay accepts and publishes: a traceparent first,
 * then the others, each a header of its own; and the option that asks for them.
 */
class CdcHeadersDrainTest {

  @Test
  void writesATraceparentAndThenTheOtherHeadersThatTheRelaysParserAccepts() {
    List<RecordHeader> headers = ApplicationHeaders.parse(CdcHeadersDrain.headersJson(3));

    assertThat(headers).extracting(RecordHeader::name).containsExactly("traceparent", "h2", "h3");
    assertThat(headers.get(0).valueAsString()).matches("00-[0-9a-f]{32}-[0-9a-f]{16}-01");
    assertThat(headers.get(1).valueAsString()).matches("value-[0-9]{12}");
    assertThat(ApplicationHeaders.parse(CdcHeadersDrain.headersJson(1)))
        .extracting(RecordHeader::name)
        .containsExactly("traceparent");
  }

  @Test
  void takesTheHeaderCountFromTheCommandLineAndRefusesANegativeOne() {
    assertThat(BenchOptions.parse(new String[] {"--only", "cdc"}).headers).isZero();
    assertThat(BenchOptions.parse(new String[] {"--headers", "4"}).headers).isEqualTo(4);
    assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--headers", "-1"}))
        .hasMessage("--headers must be 0 or more, got -1");
  }
}
