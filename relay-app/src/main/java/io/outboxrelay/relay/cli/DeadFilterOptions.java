package io.outboxrelay.relay.cli;

import io.outboxrelay.relay.admin.AdminException;
import io.outboxrelay.relay.admin.DeadFilter;
import java.time.ZoneId;
import picocli.CommandLine.Option;

/** The filter options of {@code dead list}, {@code dead requeue} and {@code dead skip}. */
final class DeadFilterOptions {

  @Option(names = "--event-type", paramLabel = "TYPE", description = "Only this event_type.")
  String eventType;

  @Option(
      names = "--aggregate-type",
      paramLabel = "TYPE",
      description = "Only this aggregate_type.")
  String aggregateType;

  @Option(names = "--aggregate-id", paramLabel = "ID", description = "Only this aggregate_id.")
  String aggregateId;

  @Option(
      names = "--since",
      paramLabel = "WHEN",
      description =
          "Only events created since then: a duration back from the database's now (2h, 30m,"
              + " 7d) or a time (2025-01-31T10:00:00Z; 2025-01-31 10:00 in the local zone).")
  String since;

  @Option(
      names = "--limit",
      paramLabel = "N",
      description =
          "At most N events, up to 100000. list: 50; requeue and skip: 1000, and when more match"
              + " nothing changes.")
  String limit;

  DeadFilter parse(int defaultLimit) throws AdminException {
    return DeadFilter.parse(
        eventType, aggregateType, aggregateId, since, limit, defaultLimit, ZoneId.systemDefault());
  }
}
