package io.outboxrelay.relay.config;

import java.util.Objects;

/**
 * How records reach Kafka: the guarantee, and for {@link DeliveryGuarantee#EXACTLY_ONCE} the
 * producer's {@code transactional.id} and the progress topic holding the committed positions.
 * Immutable.
 *
 * @param guarantee {@code delivery.guarantee}
 * @param transactionalId the transactional producer's id ({@code delivery.transactional.id}, or
 *     derived from the relay name, the database and the table): the same for a leader and its
 *     standby, so that a new leader's producer fences the previous one
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
   * The {@code transactional.id} a relay uses unless {@code delivery.transactional.id} is set: one
   * per relay name and outbox table.
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
