package io.outboxrelay.bench;

import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;

/**
 * A pipeline of the peers group: its id on the command line ({@code --peers}), its column heading,
 * and how to prepare it once (what it needs beyond the build) before it is set up for each database
 * and topic prefix.
 */
enum Peer {
  RELAY("relay", "outbox-relay (CDC)") {
    @Override
    Prepared prepare(BenchEnv env, PeerOptions options, PeerSource source) {
      String setup =
          "the relay's distribution, CDC on "
              + source.label()
              + ", -Xmx"
              + env.relayEnv().getOrDefault("OUTBOX_RELAY_HEAP", "256m")
              + " and its launcher's JVM options"
              + (env.relaySettings().isEmpty()
                  ? ""
                  : "; settings " + new TreeMap<>(env.relaySettings()));
      return new Prepared(
          setup, (db, name, prefix) -> new RelayPipeline(env, source, db, name, prefix));
    }
  },
  CONNECT("connect", "Kafka Connect + Debezium EventRouter") {
    @Override
    Prepared prepare(BenchEnv env, PeerOptions options, PeerSource source)
        throws PeerUnavailableException {
      if (!source.hasConnectPlugin()) {
        throw new PeerUnavailableException(
            "the bench builds Kafka Connect's plugin for MariaDB only (tools/bench/peers), not for "
                + source.label());
      }
      String setup =
          "Kafka Connect 4.1.1 standalone worker, Debezium MariaDB connector and EventRouter"
              + " 3.5.0.Final, -Xmx"
              + options.connectHeap()
              + " "
              + String.join(" ", ConnectPipeline.JVM_OPTIONS)
              + (options.connectSettings().isEmpty()
                  ? "; Debezium's and Connect's defaults"
                  : "; connector settings " + new TreeMap<>(options.connectSettings()));
      return new Prepared(
          setup, (db, name, prefix) -> new ConnectPipeline(env, db, name, prefix, options));
    }
  },
  SERVER("server", "Debezium Server + EventRouter") {
    @Override
    Prepared prepare(BenchEnv env, PeerOptions options, PeerSource source)
        throws PeerUnavailableException {
      String version = options.serverVersion();
      JavaRuntimes.Jdk java =
          JavaRuntimes.atLeast(
              ServerDistribution.JAVA_FEATURE, options.serverJava(), JavaRuntimes.SYSTEM_JVMS);
      ServerDistribution distribution =
          ServerDistribution.obtain(
              ServerDistribution.MAVEN_CENTRAL, version, ServerDistribution.cacheDir());
      String setup =
          "Debezium Server "
              + version
              + " (its "
              + source.debeziumConnector()
              + ", EventRouter and Kafka sink), Java "
              + java.version()
              + ", -Xmx"
              + options.serverHeap()
              + (options.serverSettings().isEmpty()
                  ? "; Debezium Server's and Debezium's defaults"
                  : "; settings " + new TreeMap<>(options.serverSettings()));
      return new Prepared(
          setup,
          (db, name, prefix) ->
              new ServerPipeline(env, source, distribution, java, db, name, prefix, options));
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

  /** Sets a prepared pipeline up for a database whose events go to {@code prefix + type}. */
  interface Factory {
    Pipeline create(OutboxDatabase db, String name, String prefix);
  }

  /**
   * A pipeline ready to be set up.
   *
   * @param setup what runs, for the line under the table
   * @param factory sets it up per database
   */
  record Prepared(String setup, Factory factory) {}

  /**
   * Gets what the pipeline needs beyond the build (Debezium Server's distribution and a Java
   * runtime for it) to run on {@code source}'s databases.
   *
   * @throws PeerUnavailableException when it cannot run here, saying why and what to do
   */
  abstract Prepared prepare(BenchEnv env, PeerOptions options, PeerSource source)
      throws PeerUnavailableException;

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
