/**
 * The local stack: real components for integration tests, the demo and the benchmark: a private
 * MariaDB server with a binlog ({@link io.outboxrelay.testsupport.stack.MariaDbServer}), a
 * single-node KRaft Kafka broker in a child JVM ({@link
 * io.outboxrelay.testsupport.stack.KafkaBroker}), a helper for the machine's PostgreSQL service
 * ({@link io.outboxrelay.testsupport.stack.PostgresService}), a Kafka Connect worker in standalone
 * mode ({@link io.outboxrelay.testsupport.stack.KafkaConnectWorker}), a JVM-wide shared stack
 * ({@link io.outboxrelay.testsupport.stack.LocalStack}), and the tools tests need around them:
 * child processes that can be signalled ({@link io.outboxrelay.testsupport.stack.ChildProcess}),
 * free ports ({@link io.outboxrelay.testsupport.stack.FreePorts}), a TCP proxy that forwards, cuts
 * or blackholes connections to a server ({@link io.outboxrelay.testsupport.stack.TcpProxy}) and a
 * reader that collects what reached Kafka ({@link io.outboxrelay.testsupport.stack.TopicReader}).
 * Nothing here is mocked: every component is the real program, started as a child process, so tests
 * can kill, pause and restart it.
 */
package io.outboxrelay.testsupport.stack;
