package io.outboxrelay.connect;

import io.outboxrelay.router.TopicTemplate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

/**
 * The transform's settings, declared once in {@link #DEF} (type, default, validator, doc) and
 * parsed once into this immutable record. Keys are those after {@code transforms.<alias>.} in the
 * connector configuration.
 *
 * @param topicTemplate the parsed topic template
 * @param poisonAction what to do with an event that cannot be routed
 */
record TransformConfig(TopicTemplate topicTemplate, PoisonAction poisonAction) {

  /** What to do with an event that cannot be routed (poison). */
  enum PoisonAction {
    /** Throw, so that Connect stops the task at the event (or tolerates it, per its settings). */
    FAIL,
    /** Log the event's id and the reason at ERROR and publish nothing for it. */
    SKIP
  }

  static final String TOPIC_TEMPLATE = "router.topic.template";
  static final String POISON_ACTION = "poison.action";

  private static final String TOPIC_TEMPLATE_DOC =
      "Topic of each event, as the relay's router.topic.template: "
          + TopicTemplate.AGGREGATE_TYPE
          + " and "
          + TopicTemplate.EVENT_TYPE
          + " are replaced by the event's columns. An event whose values make an illegal topic"
          + " name is poison. The key is always aggregate_id, the value the payload's bytes; the"
          + " headers are the router's (id, event_type, aggregate_type, aggregate_id).";

  private static final String POISON_ACTION_DOC =
      "What to do with an event that cannot be routed (an illegal topic name, a NULL payload, a"
          + " missing outbox column), as the relay's cdc.poison.action: fail throws, so Connect"
          + " stops the task at the event unless errors.tolerance=all; skip logs the event's id"
          + " and the reason at ERROR and publishes nothing for it.";

  /**
   * Keys Connect itself puts under {@code transforms.<alias>.} and passes on to the transform; they
   * are not typos.
   */
  private static final Set<String> CONNECT_KEYS = Set.of("type", "predicate", "negate", "version");

  /** The declared settings; {@link OutboxRouterTransform#config()} returns it. */
  static final ConfigDef DEF =
      new ConfigDef()
          .define(
              TOPIC_TEMPLATE,
              Type.STRING,
              TopicTemplate.DEFAULT,
              TransformConfig::validateTopicTemplate,
              Importance.HIGH,
              TOPIC_TEMPLATE_DOC)
          .define(
              POISON_ACTION,
              Type.STRING,
              "fail",
              ConfigDef.CaseInsensitiveValidString.in("fail", "skip"),
              Importance.MEDIUM,
              POISON_ACTION_DOC);

  /**
   * Parses and checks the settings, reporting every problem at once.
   *
   * @param props the transform's settings
   * @return the parsed settings
   * @throws ConfigException listing every problem: an invalid value or an unknown key (a typo)
   */
  static TransformConfig parse(Map<String, ?> props) {
    List<String> problems = new ArrayList<>();
    Set<String> unknown = new TreeSet<>(props.keySet());
    unknown.removeAll(DEF.names());
    unknown.removeAll(CONNECT_KEYS);
    for (String key : unknown) {
      problems.add(
          "unknown setting '"
              + key
              + "' (a typo?): the outbox transform knows "
              + new TreeSet<>(DEF.names()));
    }
    TopicTemplate template = null;
    Object templateValue = props.get(TOPIC_TEMPLATE);
    try {
      template =
          TopicTemplate.parse(templateValue == null ? TopicTemplate.DEFAULT : text(templateValue));
    } catch (IllegalArgumentException e) {
      problems.add(TOPIC_TEMPLATE + ": " + e.getMessage());
    }
    PoisonAction action = null;
    Object actionValue = props.get(POISON_ACTION);
    String actionText = actionValue == null ? "fail" : text(actionValue).trim();
    try {
      action = PoisonAction.valueOf(actionText.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      problems.add(POISON_ACTION + ": '" + actionText + "' is not one of fail, skip");
    }
    if (!problems.isEmpty()) {
      throw new ConfigException(
          "the outbox transform's settings have "
              + problems.size()
              + (problems.size() == 1 ? " problem: " : " problems: ")
              + String.join("; ", problems));
    }
    return new TransformConfig(template, action);
  }

  private static void validateTopicTemplate(String name, Object value) {
    if (value == null) {
      return; // the default applies
    }
    try {
      TopicTemplate.parse(text(value));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(name, value, e.getMessage());
    }
  }

  private static String text(Object value) {
    return value instanceof String s ? s : String.valueOf(value);
  }
}
