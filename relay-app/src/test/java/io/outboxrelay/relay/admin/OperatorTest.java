package io.outboxrelay.relay.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class OperatorTest {

  @Test
  void namesTheUserBehindSudo() {
    assertThat(Operator.of("alice", Map.of()).name()).isEqualTo("alice");
    assertThat(Operator.of("root", Map.of("SUDO_USER", "alice")).name())
        .isEqualTo("root (sudo by alice)");
    assertThat(Operator.of("alice", Map.of("SUDO_USER", "alice")).name()).isEqualTo("alice");
  }

  @Test
  void keepsWhoAndWhyBeforeTheReasonTheEventWentDead() {
    Operator alice = new Operator("alice");
    assertThat(alice.skippedError("amount fixed by hand", "RecordTooLargeException: 2 MB"))
        .isEqualTo(
            "skipped by operator alice: amount fixed by hand | was DEAD:"
                + " RecordTooLargeException: 2 MB");
    assertThat(alice.skippedError("no longer needed", null))
        .isEqualTo("skipped by operator alice: no longer needed");
  }

  @Test
  void cutsTheTextToTheColumnWithoutSplittingACharacter() {
    Operator alice = new Operator("alice");
    String longError = "x".repeat(2000);
    assertThat(alice.skippedError("r", longError)).hasSize(1000);
    String snowmen = "\u2603".repeat(10);
    String emoji = "a" + "\uD83D\uDE00".repeat(10); // surrogate pairs from index 1
    assertThat(Operator.cut(snowmen, 4)).isEqualTo("\u2603".repeat(4));
    assertThat(Operator.cut(emoji, 4)).isEqualTo("a\uD83D\uDE00"); // not a lone high surrogate
  }

  @Test
  void requiresAReasonOfSensibleLength() throws Exception {
    assertThat(Operator.checkReason("  wrong amount \n fixed  ")).isEqualTo("wrong amount   fixed");
    assertThatThrownBy(() -> Operator.checkReason(null))
        .isInstanceOf(AdminException.class)
        .hasMessageStartingWith("--reason is required: say why");
    assertThatThrownBy(() -> Operator.checkReason("   "))
        .hasMessageStartingWith("--reason is required");
    assertThatThrownBy(() -> Operator.checkReason("x".repeat(501)))
        .hasMessage("--reason is 501 characters long: keep it under 500");
  }
}
