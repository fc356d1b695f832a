package io.outboxrelay.bench;

import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;

/**
 * A pipeline of the peers group: its id on the command line ({@code --peers}), its column heading,
 * and how to set it up for one database and topic prefix.
 */
enum Peer {
  RELAY("relay", "outbox-relay (CDC)") {
    @Override
    Pipeline create(
        BenchEnv env, OutboxDatabase db, String name, String prefix, PeerOptions options) {
      return new RelayPipeline(env, db, name, prefix);
    }

    @Override
    String setup(BenchEnv env, PeerOptions options) {
      return "the relay's distribution, -Xmx"
          + env.relayEnv().getOrDefault("OUTBOX_RELAY_HEAP", "256m")
          + " and its launcher's JVM options"
          + (env.relaySettings().isEmpty()
              ? ""
              : "; settings " + new TreeMap<>(env.relaySettings()));
    }
  },
  CONNECT("connect", "Kafka Connect + Debezium EventRouter") {
    @Override
    Pipeline create(
        BenchEnv env, OutboxDatabase db, String name, String prefix, PeerOptions options) {
      return new ConnectPipeline(env, db, name, prefix, options);
    }

    @Override
    String setup(BenchEnv env, PeerOptions options) {
      return "Kafka Connect 4.1.1 standalone worker, Debezium MariaDB connector and EventRouter"
          + " 3.5.0.Final, -Xmx"
          + options.connectHeap()
          + " "
          + String.join(" ", ConnectPipeline.JVM_OPTIONS)
          + (options.connectSettings().isEmpty()
              ? "; Debezium's and Connect's defaults"
              : "; connector settings " + new TreeMap<>(options.connectSettings()));
    }
  };

  /** Every pipeline, in the order of the table's columns. */
  static final List<Peer> ALL = List.of(values());

  private final String id;
  private final String label;

  Peer(String id, String label) {
    this.id = id;
    this.label = label;
  }

  String id() {
    return id;
  }

  String label() {
    return label;
  }

  /** Sets the pipeline up for a database whose events go to {@code prefix + aggregate_type}. */
  abstract Pipeline create(
      BenchEnv env, OutboxDatabase db, String name, String prefix, PeerOptions options);

  /** What runs, for the line under the table. */
  abstract String setup(BenchEnv env, PeerOptions options);

  /**
   * @param ids e.g. {@code relay,connect}
   * @return the pipelines named, in the table's order
   * @throws IllegalArgumentException for an unknown id
   */
  static List<Peer> named(String ids) {
    Set<String> wanted = Set.of(ids.split(","));
    List<Peer> peers = ALL.stream().filter(p -> wanted.contains(p.id)).toList();
    if (peers.size() != wanted.size()) {
      throw new IllegalArgumentException(
          "unknown pipeline in --peers "
              + wanted
              + "; pipelines: "
              + Arrays.stream(values()).map(Peer::id).toList());
    }
    return peers;
  }
}
