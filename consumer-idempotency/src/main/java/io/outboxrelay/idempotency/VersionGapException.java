package io.outboxrelay.idempotency;

/**
 * An event skips ahead of its aggregate's last applied version and {@link GapPolicy#REJECT} is in
 * force. The transaction was rolled back (the event id is not recorded). This is a retriable
 * failure: retried later, the event succeeds once the missing versions have been applied.
 */
public class VersionGapException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** The rejected event. */
  private final String eventId;

  /** Its aggregate version. */
  private final AggregateVersion version;

  /** The last version applied to the aggregate. */
  private final long lastAppliedVersion;

  /**
   * Creates the exception.
   *
   * @param eventId the rejected event; not {@code null}
   * @param version its aggregate version; not {@code null}
   * @param lastAppliedVersion the last version applied to the aggregate
   */
  public VersionGapException(String eventId, AggregateVersion version, long lastAppliedVersion) {
    super(
        "event "
            + eventId
            + " brings "
            + version.aggregateType()
            + " "
            + version.aggregateId()
            + " to version "
            + version.version()
            + " but the last applied version is "
            + lastAppliedVersion
            + ": versions "
            + (lastAppliedVersion + 1)
            + (version.version() - 1 > lastAppliedVersion + 1
                ? " to " + (version.version() - 1)
                : "")
            + " are missing; retry later");
    this.eventId = eventId;
    this.version = version;
    this.lastAppliedVersion = lastAppliedVersion;
  }

  /** The id of the rejected event; never {@code null}. */
  public String eventId() {
    return eventId;
  }

  /** The aggregate version of the rejected event; never {@code null}. */
  public AggregateVersion version() {
    return version;
  }

  /** The last version applied to the aggregate. */
  public long lastAppliedVersion() {
    return lastAppliedVersion;
  }
}
