package io.outboxrelay.bench;

import java.util.Map;

/**
 * How the peers group sets up the pipelines beside the relay (the relay takes the benchmark's relay
 * options).
 *
 * @param connectHeap the Connect worker's {@code -Xmx} ({@code --connect-heap})
 * @param connectSettings connector settings added to or replacing the benchmark's ({@code
 *     --connect-set}), e.g. {@code poll.interval.ms}
 */
record PeerOptions(String connectHeap, Map<String, String> connectSettings) {

  PeerOptions {
    connectSettings = Map.copyOf(connectSettings);
  }
}
