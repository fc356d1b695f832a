package io.outboxrelay.relay.config;

import java.util.Objects;

/**
 * How records reach Kafka: the guarantee, and for {@link DeliveryGuarantee#EXACTLY_ONCE} the
 * producer's {@code transactional.id} and the progress topic holding the committed positions.
 * Immutable.
 *
 * @param guarantee {@code delivery.guarantee}
 * @param transactionalId the prefix of the transactional producers' ids ({@code
 *     delivery.transactional.id}, or derived from the relay name, the database and the table): the
 *     same for a leader and its standby, so that a new leader's producers fence the previous ones
 *     ({@link #transactionalIds()})
 * @param progressTopic the compacted, single-partition topic holding each relay's committed
 *     position ({@code delivery.progress.topic})
 */
public record DeliveryConfig(
    DeliveryGuarantee guarantee, String transactionalId, String progressTopic) {

  /** Checks the fields. */
  public DeliveryConfig {
    Objects.requireNonNull(guarantee, "guarantee");
    Objects.requireNonNull(transactionalId, "transactionalId");
    Objects.requireNonNull(progressTopic, "progressTopic");
  }

  /**
   * Whether records and positions are committed in Kafka transactions.
   *
   * @return true for {@link DeliveryGuarantee#EXACTLY_ONCE}
   */
  public boolean exactlyOnce() {
    return guarantee == DeliveryGuarantee.EXACTLY_ONCE;
  }

  /**
   * How many transactional producers a relay alternates between, one transaction each in turn.
   *
   * <p>Why two: once a transaction commits, the coordinator still writes its markers, and a
   * transaction of the same id that starts meanwhile waits for them (the broker retries after
   * {@code add.partitions.to.txn.retry.backoff.ms}, 20 ms by default, or the client after {@code
   * CONCURRENT_TRANSACTIONS}). A relay publishing back to back would pay that wait on every batch;
   * with two ids, each transaction follows the other id's, whose markers have long been written.
   * Batches stay strictly one after the other: a transaction starts only once the previous one
   * committed.
   */
  public static final int TRANSACTIONAL_PRODUCERS = 2;

  /**
   * The ids of the relay's transactional producers: {@code <transactionalId>.0} and {@code
   * <transactionalId>.1} ({@link #TRANSACTIONAL_PRODUCERS}). A new term initialises all of them,
   * which fences every earlier producer of each and aborts what it left open; ACLs grant them by
   * the prefix {@link #transactionalId()}.
   *
   * @return the ids, in the order the relay uses them
   */
  public java.util.List<String> transactionalIds() {
    java.util.List<String> ids = new java.util.ArrayList<>(TRANSACTIONAL_PRODUCERS);
    for (int i = 0; i < TRANSACTIONAL_PRODUCERS; i++) {
      ids.add(transactionalId + "." + i);
    }
    return java.util.List.copyOf(ids);
  }

  /**
   * The {@code transactional.id} prefix a relay uses unless {@code delivery.transactional.id} is
   * set: one per relay name and outbox table.
   *
   * @param relayName {@code relay.name}
   * @param database {@code source.database}
   * @param table {@code source.table}
   * @return {@code outbox-relay.<relay.name>.<database>.<table>}
   */
  public static String defaultTransactionalId(String relayName, String database, String table) {
    return "outbox-relay." + relayName + "." + database + "." + table;
  }

  static DeliveryConfig from(ConfigValues v) {
    String id = v.get(RelayConfigKeys.DELIVERY_TRANSACTIONAL_ID);
    return new DeliveryConfig(
        v.get(RelayConfigKeys.DELIVERY_GUARANTEE),
        id != null
            ? id
            : defaultTransactionalId(
                v.get(RelayConfigKeys.RELAY_NAME),
                v.get(RelayConfigKeys.SOURCE_DATABASE),
                v.get(RelayConfigKeys.SOURCE_TABLE)),
        v.get(RelayConfigKeys.DELIVERY_PROGRESS_TOPIC));
  }
}
