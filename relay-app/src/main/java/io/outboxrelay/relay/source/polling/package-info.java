/**
 * Polling mode: worker threads claim due outbox rows with {@code SELECT ... FOR UPDATE SKIP LOCKED}
 * in short READ COMMITTED transactions, take a lease ({@code PROCESSING}, a fresh {@code
 * claim_token}, {@code processing_until}), publish after the claim committed, and mark rows {@code
 * PUBLISHED} only while their token still holds. Every time in a predicate comes from the database
 * clock.
 */
package io.outboxrelay.relay.source.polling;
