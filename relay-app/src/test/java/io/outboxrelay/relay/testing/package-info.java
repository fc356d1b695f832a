/**
 * The relay's own test fixtures, those that need its classes: the command line in this JVM ({@link
 * io.outboxrelay.relay.testing.Cli}), test settings parsed by the relay's loader ({@link
 * io.outboxrelay.relay.testing.Configs}), relays run in this JVM ({@link
 * io.outboxrelay.relay.testing.InProcessRelays}), the version scenario checked against the relay's
 * metrics, and the base of the fault tests on a MariaDB of their own. Everything else is in the
 * test-support module.
 */
package io.outboxrelay.relay.testing;
