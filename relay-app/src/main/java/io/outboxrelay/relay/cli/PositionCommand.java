package io.outboxrelay.relay.cli;

import io.outboxrelay.relay.admin.AdminException;
import io.outboxrelay.relay.admin.ConnectOffsets;
import io.outboxrelay.relay.admin.Operator;
import io.outboxrelay.relay.admin.PositionCommands;
import io.outboxrelay.relay.admin.PositionImport;
import io.outboxrelay.relay.admin.PostgresPositionCommands;
import io.outboxrelay.relay.config.RelayConfig;
import java.io.PrintWriter;
import java.nio.file.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code outbox-relay position}: the CDC relay's stored binlog position. */
@Command(
    name = "position",
    mixinStandardHelpOptions = true,
    description =
        "Show, reset or import (from Kafka Connect) the binlog position a CDC relay resumes from.",
    subcommands = {
      PositionCommand.Show.class,
      PositionCommand.Reset.class,
      PositionCommand.Import.class
    })
final class PositionCommand extends CommandGroup {

  /** Whether the configuration is CDC on PostgreSQL (a slot and an LSN, not a binlog). */
  static boolean postgres(RelayConfig config) {
    return config.cdc() != null && !config.source().flavor().readsBinlog();
  }

  /** {@code position show}. */
  @Command(
      name = "show",
      mixinStandardHelpOptions = true,
      description =
          "Show the stored position, the server's current one, and how far apart (or that the"
              + " stored one was purged).")
  static final class Show extends AdminCommand {

    @Option(names = "--json", description = "Print JSON.")
    boolean json;

    @Override
    boolean knowsPostgresCdc() {
      return true;
    }

    @Override
    void run(RelayConfig config, PrintWriter out) throws AdminException {
      if (postgres(config)) {
        new PostgresPositionCommands(config, out, Operator.current()).show(json);
        return;
      }
      new PositionCommands(config, out, Operator.current()).show(json);
    }
  }

  /** {@code position reset}. */
  @Command(
      name = "reset",
      mixinStandardHelpOptions = true,
      description = {
        "Move the stored position to the server's current one (MariaDB), for a position purged"
            + " from the binlog while the relay was down. Without --yes, print what it would skip"
            + " and how to find those outbox rows. Refused while a binlog reader of the relay's"
            + " user is connected."
      })
  static final class Reset extends AdminCommand {

    @Option(
        names = "--to-current",
        description = "Reset to the server's current binlog position (required).")
    boolean toCurrent;

    @Option(names = "--yes", description = "Write it; without it nothing changes.")
    boolean yes;

    @Override
    void checkArguments() throws AdminException {
      if (!toCurrent) {
        throw AdminException.usage(
            "say where to: --to-current (the server's current binlog position) is the only"
                + " target");
      }
    }

    @Override
    boolean knowsPostgresCdc() {
      return true;
    }

    @Override
    void run(RelayConfig config, PrintWriter out) throws AdminException {
      if (postgres(config)) {
        new PostgresPositionCommands(config, out, Operator.current()).resetToCurrent(yes);
        return;
      }
      new PositionCommands(config, out, Operator.current()).resetToCurrent(yes);
    }
  }

  /** {@code position import}. */
  @Command(
      name = "import",
      mixinStandardHelpOptions = true,
      description = {
        "Take over a Debezium MariaDB/MySQL connector's last committed offset, from a Kafka"
            + " Connect cluster's offsets topic or from an offsets file (Connect standalone,"
            + " Debezium Server), as the relay's stored position: the relay then continues where"
            + " the connector stopped, without a snapshot. Stop the connector first. Without --yes,"
            + " print what it would store. Refused when the binlog no longer holds the offset, when"
            + " the relay already has another position, or while a relay or a binlog reader of the"
            + " relay's user runs. With delivery.guarantee=exactly-once the position is committed to"
            + " the progress topic first, and nothing is stored when Kafka does not answer."
      })
  static final class Import extends AdminCommand {

    @Option(
        names = "--connector",
        required = true,
        paramLabel = "<name>",
        description = "The connector's name, as Connect knows it.")
    String connector;

    @Option(
        names = "--from-connect-topic",
        paramLabel = "<topic>",
        description = "The Connect cluster's offsets topic (its offset.storage.topic).")
    String topic;

    @Option(
        names = "--from-offsets-file",
        paramLabel = "<file>",
        description =
            "An offsets file of Kafka's FileOffsetBackingStore (offset.storage.file.filename of a"
                + " standalone worker, debezium.source.offset.storage.file.filename of Debezium"
                + " Server).")
    Path file;

    @Option(
        names = "--bootstrap-servers",
        paramLabel = "<host:port,...>",
        description =
            "The Connect cluster's brokers, when not the relay's (kafka.bootstrap.servers); the"
                + " relay's kafka.producer security settings apply.")
    String bootstrapServers;

    @Option(
        names = "--slot",
        paramLabel = "<name>",
        description =
            "PostgreSQL: the connector's replication slot (its slot.name; default debezium),"
                + " copied as the relay's slot.")
    String slot;

    @Option(names = "--yes", description = "Write it; without it nothing changes.")
    boolean yes;

    @Override
    boolean knowsPostgresCdc() {
      return true;
    }

    @Override
    void checkArguments() throws AdminException {
      if ((topic == null) == (file == null)) {
        throw AdminException.usage(
            "say where the connector's offset is: --from-connect-topic <offsets topic> or"
                + " --from-offsets-file <file>, one of them");
      }
      if (file != null && bootstrapServers != null) {
        throw AdminException.usage("--bootstrap-servers is for --from-connect-topic");
      }
    }

    @Override
    void run(RelayConfig config, PrintWriter out) throws AdminException {
      boolean postgres = postgres(config);
      if (slot != null && !postgres) {
        throw AdminException.usage("--slot is for CDC on PostgreSQL");
      }
      ConnectOffsets.Found found =
          topic != null
              ? ConnectOffsets.fromTopic(
                  ConnectOffsets.consumerSettings(
                      bootstrapServers != null
                          ? bootstrapServers
                          : config.producer().bootstrapServers(),
                      config.producer().overrides()),
                  topic,
                  connector)
              : ConnectOffsets.fromFile(file, connector);
      if (postgres) {
        new PostgresPositionCommands(config, out, Operator.current())
            .importOffset(found, slot != null ? slot : "debezium", yes);
        return;
      }
      new PositionImport(config, out, Operator.current()).run(found, yes);
    }
  }
}
