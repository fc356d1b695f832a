/**
 * The {@code outbox-relay} command line: {@code run}, {@code validate}, the operator commands
 * {@code status}, {@code dead} and {@code position} (their work is in {@code relay.admin}), {@code
 * --help}, {@code --version}. Exit codes: 0 ok, 1 fatal runtime error, 2 bad usage, configuration
 * or database setup.
 */
package io.outboxrelay.relay.cli;
