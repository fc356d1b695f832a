/**
 * Spring Boot auto-configuration of the outbox writer: an {@link
 * io.outboxrelay.writer.spring.Outbox} bean that appends events on the connection of the
 * Spring-managed transaction in progress on the application's {@code DataSource}, so that a
 * {@code @Transactional} method commits its business change and its events together. Configured
 * under {@code outbox.writer.*} ({@link io.outboxrelay.writer.spring.OutboxWriterProperties}).
 */
package io.outboxrelay.writer.spring;
