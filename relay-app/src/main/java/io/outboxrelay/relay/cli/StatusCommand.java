package io.outboxrelay.relay.cli;

import io.outboxrelay.relay.admin.AdminException;
import io.outboxrelay.relay.admin.RelayStatus;
import io.outboxrelay.relay.config.RelayConfig;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code outbox-relay status}: the relay's position or pending counts, read from its database. */
@Command(
    name = "status",
    mixinStandardHelpOptions = true,
    description = {
      "Show what the relay has to do, from its database. CDC: the stored binlog position, the"
          + " server's, how far behind, the last position commit; with exactly-once delivery also"
          + " the position committed in Kafka and which one the next start takes. Polling: pending,"
          + " processing,"
          + " DEAD and SKIPPED rows, the age of the oldest pending row (database clock), the last"
          + " publish."
    })
final class StatusCommand extends AdminCommand {

  /** {@code status} shows a PostgreSQL relay's position and replication slot. */
  @Override
  boolean knowsPostgresCdc() {
    return true;
  }

  @Option(names = "--json", description = "Print JSON.")
  boolean json;

  @Override
  void run(RelayConfig config, PrintWriter out) throws AdminException {
    new RelayStatus(config, out).print(json);
  }
}
