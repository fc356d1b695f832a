/**
 * The benchmark command: starts the local stack, runs the relay as a child process exactly as users
 * run it (CDC and polling mode), compares claim strategies on the outbox table and the idempotent
 * consumer against a plain one, and prints a table of measured figures (rates, latency percentiles,
 * the relay's RSS and CPU, statements per event). Figures are measurements of one run on the
 * machine at hand, never estimates.
 */
package io.outboxrelay.bench;
