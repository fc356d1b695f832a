package io.outboxrelay.testsupport.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class FreePortsTest {

  @Test
  void handsOutDistinctPortsThatCanBeBound() {
    int[] ports = FreePorts.findFreePorts(20);

    assertThat(Arrays.stream(ports).distinct().count()).isEqualTo(20);
    assertThat(Arrays.stream(ports).boxed()).allMatch(FreePorts::isFree);
  }

  @Test
  void picksPortsBelowTheEphemeralRange() {
    assertThat(Arrays.stream(FreePorts.findFreePorts(20)).boxed())
        .allMatch(port -> port >= 15_000 && port < 32_768);
  }

  @Test
  void reportsABoundPortAsTaken() throws IOException {
    try (ServerSocket socket = new ServerSocket()) {
      socket.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));

      assertThat(FreePorts.isFree(socket.getLocalPort())).isFalse();
    }
  }
}
