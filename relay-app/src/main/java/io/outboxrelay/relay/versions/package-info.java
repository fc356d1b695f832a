/**
 * The optional check of the aggregate versions the relay publishes ({@code router.version.check}):
 * per aggregate, whether each event's {@code aggregate_version} follows the last one published,
 * with bounded memory; what does not is logged and counted, never held back or reordered.
 */
package io.outboxrelay.relay.versions;
