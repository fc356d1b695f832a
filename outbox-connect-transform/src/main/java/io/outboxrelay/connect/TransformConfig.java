package io.outboxrelay.connect;

import io.outboxrelay.router.ColumnMapping;
import io.outboxrelay.router.EventRouter;
import io.outboxrelay.router.HeaderPlacement;
import io.outboxrelay.router.OutboxColumn;
import io.outboxrelay.router.OutboxHeaders;
import io.outboxrelay.router.TopicTemplate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

/**
 * The transform's settings, declared once in {@link #DEF} (type, default, validator, doc) and
 * parsed once into this immutable record. Keys are those after {@code transforms.<alias>.} in the
 * connector configuration; the routing and column keys are the relay's own, with the same defaults.
 *
 * @param topicTemplate the parsed topic template
 * @param poisonAction what to do with an event that cannot be routed
 * @param routerHeaders the relay's own headers to publish, in order
 * @param columns which columns hold what
 * @param rowIdColumn the row id column, named in messages
 */
record TransformConfig(
    TopicTemplate topicTemplate,
    PoisonAction poisonAction,
    List<String> routerHeaders,
    ColumnMapping columns,
    String rowIdColumn) {

  /** What to do with an event that cannot be routed (poison). */
  enum PoisonAction {
    /** Throw, so that Connect stops the task at the event (or tolerates it, per its settings). */
    FAIL,
    /** Log the event's id and the reason at ERROR and publish nothing for it. */
    SKIP
  }

  static final String TOPIC_TEMPLATE = "router.topic.template";
  static final String ROUTER_HEADERS = "router.headers";
  static final String POISON_ACTION = "poison.action";

  /** Before each column's {@link OutboxColumn#key()}: the relay's column settings. */
  static final String COLUMN_PREFIX = "source.column.";

  static final String COLUMN_SEQUENCE = COLUMN_PREFIX + "sequence";
  static final String ADDITIONAL_PLACEMENT = "source.column.additional.placement";

  private static final String TOPIC_TEMPLATE_DOC =
      "Topic of each event, as the relay's router.topic.template: "
          + TopicTemplate.AGGREGATE_TYPE
          + " and "
          + TopicTemplate.EVENT_TYPE
          + " are replaced by the event's aggregate type and event type. An event whose values"
          + " make an illegal topic name is poison. The key is always the aggregate id, the value"
          + " the payload's bytes.";

  private static final String ROUTER_HEADERS_DOC =
      "The relay's own headers to publish, in this order, as the relay's router.headers: a"
          + " list of "
          + String.join(", ", OutboxHeaders.ALL)
          + " that includes id (aggregate_version only for rows that have one). id alone is what"
          + " Debezium's outbox EventRouter publishes.";

  private static final String POISON_ACTION_DOC =
      "What to do with an event that cannot be routed (an illegal topic name, a NULL payload, a"
          + " missing outbox column, invalid application headers or trace context), as the"
          + " relay's cdc.poison.action: fail throws, so Connect stops the task at the event"
          + " unless errors.tolerance=all; skip logs the event's id and the reason at ERROR and"
          + " publishes nothing for it.";

  private static final String ADDITIONAL_PLACEMENT_DOC =
      "More columns to publish as headers, after the relay's own: a comma-separated list of"
          + " column:header[:alias] as Debezium's table.fields.additional.placement (only the"
          + " header placement), as the relay's setting of that name.";

  /**
   * Keys Connect itself puts under {@code transforms.<alias>.} and passes on to the transform; they
   * are not typos.
   */
  private static final Set<String> CONNECT_KEYS = Set.of("type", "predicate", "negate", "version");

  /** The declared settings; {@link OutboxRouterTransform#config()} returns it. */
  static final ConfigDef DEF = definitions();

  private static ConfigDef definitions() {
    ConfigDef def =
        new ConfigDef()
            .define(
                TOPIC_TEMPLATE,
                Type.STRING,
                TopicTemplate.DEFAULT,
                TransformConfig::validateTopicTemplate,
                Importance.HIGH,
                TOPIC_TEMPLATE_DOC)
            .define(
                ROUTER_HEADERS,
                Type.LIST,
                String.join(",", OutboxHeaders.ALL),
                TransformConfig::validateRouterHeaders,
                Importance.MEDIUM,
                ROUTER_HEADERS_DOC)
            .define(
                POISON_ACTION,
                Type.STRING,
                "fail",
                ConfigDef.CaseInsensitiveValidString.in("fail", "skip"),
                Importance.MEDIUM,
                POISON_ACTION_DOC);
    for (OutboxColumn c : OutboxColumn.values()) {
      column(
          def,
          key(c),
          c.defaultName(),
          c.description() + (c.required() ? "" : " Optional: read when the row has it."));
    }
    column(
        def,
        COLUMN_SEQUENCE,
        ColumnMapping.DEFAULT_SEQUENCE,
        "The row id column, named in messages.");
    return def.define(
        ADDITIONAL_PLACEMENT,
        Type.STRING,
        "",
        TransformConfig::validatePlacement,
        Importance.LOW,
        ADDITIONAL_PLACEMENT_DOC);
  }

  private static void column(ConfigDef def, String key, String defaultValue, String doc) {
    def.define(
        key,
        Type.STRING,
        defaultValue,
        (name, value) -> {
          if (value != null && text(value).isBlank()) {
            throw new ConfigException(name, value, "a column name cannot be empty");
          }
        },
        Importance.LOW,
        doc + " As the relay's setting of this name.");
  }

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
    TopicTemplate template =
        parsed(props, TOPIC_TEMPLATE, TopicTemplate.DEFAULT, TopicTemplate::parse, problems);
    PoisonAction action = null;
    String actionText = value(props, POISON_ACTION, "fail").trim();
    try {
      action = PoisonAction.valueOf(actionText.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      problems.add(POISON_ACTION + ": '" + actionText + "' is not one of fail, skip");
    }
    List<String> headers = list(value(props, ROUTER_HEADERS, String.join(",", OutboxHeaders.ALL)));
    String headersProblem = EventRouter.problemWithHeaders(headers);
    if (headersProblem != null) {
      problems.add(ROUTER_HEADERS + ": " + headersProblem);
    }
    List<HeaderPlacement> placements =
        parsed(props, ADDITIONAL_PLACEMENT, "", HeaderPlacement::parseList, problems);
    Map<OutboxColumn, String> names = new EnumMap<>(OutboxColumn.class);
    for (OutboxColumn c : OutboxColumn.values()) {
      names.put(c, column(props, key(c), c.defaultName(), problems));
    }
    String rowId = column(props, COLUMN_SEQUENCE, ColumnMapping.DEFAULT_SEQUENCE, problems);
    if (placements != null) {
      for (HeaderPlacement p : placements) {
        if (headers.contains(p.header())) {
          problems.add(
              ADDITIONAL_PLACEMENT
                  + ": header "
                  + p.header()
                  + " is also one of "
                  + ROUTER_HEADERS
                  + ": give the placement another alias");
        }
      }
    }
    if (!problems.isEmpty()) {
      throw new ConfigException(
          "the outbox transform's settings have "
              + problems.size()
              + (problems.size() == 1 ? " problem: " : " problems: ")
              + String.join("; ", problems));
    }
    return new TransformConfig(
        template, action, List.copyOf(headers), ColumnMapping.of(names, placements), rowId);
  }

  /** The setting that names the column. */
  static String key(OutboxColumn column) {
    return COLUMN_PREFIX + column.key();
  }

  private static <T> T parsed(
      Map<String, ?> props,
      String key,
      String defaultValue,
      Function<String, T> parser,
      List<String> problems) {
    try {
      return parser.apply(value(props, key, defaultValue));
    } catch (IllegalArgumentException e) {
      problems.add(key + ": " + e.getMessage());
      return null;
    }
  }

  private static String column(
      Map<String, ?> props, String key, String defaultValue, List<String> problems) {
    String name = value(props, key, defaultValue).trim();
    if (name.isEmpty()) {
      problems.add(key + ": a column name cannot be empty");
      return defaultValue;
    }
    return name;
  }

  private static String value(Map<String, ?> props, String key, String defaultValue) {
    Object v = props.get(key);
    if (v == null) {
      return defaultValue;
    }
    return v instanceof List<?> l
        ? String.join(",", l.stream().map(String::valueOf).toList())
        : text(v);
  }

  private static List<String> list(String text) {
    return Arrays.stream(text.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
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

  private static void validateRouterHeaders(String name, Object value) {
    if (value instanceof List<?> l) {
      String problem = EventRouter.problemWithHeaders(l.stream().map(String::valueOf).toList());
      if (problem != null) {
        throw new ConfigException(name, value, problem);
      }
    }
  }

  private static void validatePlacement(String name, Object value) {
    if (value == null) {
      return;
    }
    try {
      HeaderPlacement.parseList(text(value));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(name, value, e.getMessage());
    }
  }

  private static String text(Object value) {
    return value instanceof String s ? s : String.valueOf(value);
  }
}
