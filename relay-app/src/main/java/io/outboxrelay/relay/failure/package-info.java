/**
 * Failure policy, shared by the CDC source, the polling source, retention and the operator
 * commands: the one place that inspects third-party exceptions (Kafka errors, SQLStates and vendor
 * error codes, the binlog client's errors) and decides what a failure means ({@link
 * io.outboxrelay.relay.failure.ErrorClassifier}, {@link io.outboxrelay.relay.failure.Disposition},
 * {@link io.outboxrelay.relay.failure.SqlErrors}), what becomes of an event after a send ({@link
 * io.outboxrelay.relay.failure.SendVerdict}), and how long to wait before trying again ({@link
 * io.outboxrelay.relay.failure.Backoff}). It depends on no source and not on the publisher.
 */
package io.outboxrelay.relay.failure;
