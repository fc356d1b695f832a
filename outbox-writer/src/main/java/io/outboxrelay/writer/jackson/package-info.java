/**
 * Payload serialisation with Jackson 2 ({@code com.fasterxml.jackson.databind}), an optional
 * dependency: the writer's core never refers to this package, so it runs without Jackson.
 */
package io.outboxrelay.writer.jackson;
