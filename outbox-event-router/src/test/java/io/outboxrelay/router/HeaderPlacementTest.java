package io.outboxrelay.router;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class HeaderPlacementTest {

  @Test
  void parsesDebeziumsFormatWithAndWithoutAlias() {
    assertThat(HeaderPlacement.parseList(" timestamp:header:eventTimestamp , type : header "))
        .containsExactly(
            new HeaderPlacement("timestamp", "eventTimestamp"),
            new HeaderPlacement("type", "type"));
    assertThat(HeaderPlacement.parseList("")).isEmpty();
    assertThat(HeaderPlacement.parseList(null)).isEmpty();
  }

  @Test
  void printsItselfInTheFormatItIsParsedFrom() {
    assertThat(HeaderPlacement.parseList("a:header:b,c:header"))
        .extracting(HeaderPlacement::toString)
        .containsExactly("a:header:b", "c:header");
  }

  @Test
  void refusesEnvelopeAndPartitionPlacementsAsNotSupported() {
    assertThatThrownBy(() -> HeaderPlacement.parseList("type:envelope:eventType"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'type:envelope:eventType' asks for the envelope placement")
        .hasMessageContaining("not supported");
    assertThatThrownBy(() -> HeaderPlacement.parseList("a:header,p:PARTITION"))
        .hasMessageContaining("partition placement, which is not supported");
  }

  @Test
  void refusesEntriesThatAreNotColumnHeaderAlias() {
    assertThatThrownBy(() -> HeaderPlacement.parseList("timestamp"))
        .hasMessageContaining("'timestamp' is not column:header or column:header:alias");
    assertThatThrownBy(() -> HeaderPlacement.parseList("a:header:b:c"))
        .hasMessageContaining("is not column:header");
    assertThatThrownBy(() -> HeaderPlacement.parseList("a:headers"))
        .hasMessageContaining("has placement 'headers': use header");
    assertThatThrownBy(() -> HeaderPlacement.parseList("a:header,"))
        .hasMessageContaining("'' is not column:header");
    assertThatThrownBy(() -> HeaderPlacement.parseList("a:header: "))
        .hasMessageContaining("empty alias");
  }
}
