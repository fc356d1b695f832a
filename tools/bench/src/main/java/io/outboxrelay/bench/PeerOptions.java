package io.outboxrelay.bench;

import java.nio.file.Path;
import java.util.Map;

/**
 * How the peers group sets up the pipelines beside the relay (the relay takes the benchmark's relay
 * options).
 *
 * @param connectHeap the Connect worker's {@code -Xmx} ({@code --connect-heap})
 * @param connectSettings connector settings added to or replacing the benchmark's ({@code
 *     --connect-set}), e.g. {@code poll.interval.ms}
 * @param serverVersion the Debezium Server distribution to run ({@code --server-version})
 * @param serverJava the Java runtime for Debezium Server, its home or its {@code bin/java} ({@code
 *     --server-java}); {@code null} to find one
 * @param serverHeap Debezium Server's {@code -Xmx} ({@code --server-heap})
 * @param serverSettings {@code application.properties} entries added to or replacing the
 *     benchmark's ({@code --server-set}), e.g. {@code debezium.source.poll.interval.ms}
 */
record PeerOptions(
    String connectHeap,
    Map<String, String> connectSettings,
    String serverVersion,
    Path serverJava,
    String serverHeap,
    Map<String, String> serverSettings) {

  PeerOptions {
    connectSettings = Map.copyOf(connectSettings);
    serverSettings = Map.copyOf(serverSettings);
  }
}
