package io.outboxrelay.writer.spring;

import io.outboxrelay.writer.PayloadSerializer;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * Finds the serializer {@link SerializerChoice} asks for. The classes that name a Jackson type are
 * loaded only after a check that the type is on the classpath.
 */
final class PayloadSerializers {

  static final String JACKSON3_MAPPER = "tools.jackson.databind.ObjectMapper";
  static final String JACKSON2_MAPPER = "com.fasterxml.jackson.databind.ObjectMapper";

  private PayloadSerializers() {}

  /**
   * The serializer of a choice, or {@code null} for none.
   *
   * @throws IllegalStateException if a Jackson generation is asked for and the application has no
   *     single mapper bean of it
   */
  static PayloadSerializer choose(SerializerChoice choice, ListableBeanFactory beans) {
    ClassLoader loader = PayloadSerializers.class.getClassLoader();
    boolean jackson3 = ClassUtils.isPresent(JACKSON3_MAPPER, loader);
    boolean jackson2 = ClassUtils.isPresent(JACKSON2_MAPPER, loader);
    switch (choice) {
      case NONE:
        return null;
      case JACKSON3:
        return required(jackson3 ? Jackson3Serializers.fromBean(beans) : null, JACKSON3_MAPPER);
      case JACKSON2:
        return required(jackson2 ? Jackson2Serializers.fromBean(beans) : null, JACKSON2_MAPPER);
      default:
        PayloadSerializer found = jackson3 ? Jackson3Serializers.fromBean(beans) : null;
        if (found == null && jackson2) {
          found = Jackson2Serializers.fromBean(beans);
        }
        return found;
    }
  }

  private static PayloadSerializer required(PayloadSerializer serializer, String mapper) {
    if (serializer == null) {
      throw new IllegalStateException(
          "outbox.writer.serializer asks for the application's "
              + mapper
              + " bean, and there is no single one: add Jackson's auto-configuration (or a bean"
              + " of that type), define a PayloadSerializer bean, or set"
              + " outbox.writer.serializer=auto");
    }
    return serializer;
  }
}
