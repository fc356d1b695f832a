package io.outboxrelay.writer.spring;

/**
 * Which {@link io.outboxrelay.writer.PayloadSerializer} the auto-configured writer uses when the
 * application defines none as a bean ({@code outbox.writer.serializer}).
 */
public enum SerializerChoice {
  /**
   * The application's Jackson 3 {@code tools.jackson.databind.ObjectMapper} bean (Spring Boot 4's
   * default), else its Jackson 2 {@code com.fasterxml.jackson.databind.ObjectMapper} bean (Spring
   * Boot 3's), else none.
   */
  AUTO,
  /** The application's Jackson 3 {@code ObjectMapper} bean; startup fails without one. */
  JACKSON3,
  /** The application's Jackson 2 {@code ObjectMapper} bean; startup fails without one. */
  JACKSON2,
  /** None: payloads must be given as {@code String} or {@code byte[]}. */
  NONE
}
