package io.outboxrelay.relay.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Generates the configuration reference (Markdown tables for {@value #REFERENCE_FILE}) and the
 * example properties file from the declarations in {@link RelayConfigKeys}, so the documentation
 * cannot drift from the code; a test compares the checked-in files with this output.
 *
 * <p>{@code main(projectRoot)} rewrites {@value #EXAMPLE_FILE} and the section of {@value
 * #REFERENCE_FILE} between the {@value #BEGIN} and {@value #END} markers.
 */
public final class ConfigReference {

  /** The document holding the generated reference, relative to the project root. */
  public static final String REFERENCE_FILE = "docs/configuration.md";

  /** The generated example properties file, relative to the project root. */
  public static final String EXAMPLE_FILE = "config/relay.properties.example";

  /** Marks the start of the generated section in {@value #REFERENCE_FILE}. */
  public static final String BEGIN = "<!-- config-reference:begin -->";

  /** Marks the end of the generated section in {@value #REFERENCE_FILE}. */
  public static final String END = "<!-- config-reference:end -->";

  private ConfigReference() {}

  /**
   * The Markdown reference: one table per group, then the relay's producer defaults.
   *
   * @return the Markdown text
   */
  public static String markdown() {
    StringBuilder md = new StringBuilder();
    for (ConfigKey.Group group : ConfigKey.Group.values()) {
      List<ConfigKey<?>> keys = keysOf(group);
      if (keys.isEmpty()) {
        continue;
      }
      md.append("\n#### ").append(group.title()).append("\n\n");
      md.append("| key | type | default | description |\n|---|---|---|---|\n");
      for (ConfigKey<?> key : keys) {
        md.append("| `")
            .append(key.name())
            .append("` | ")
            .append(typeColumn(key).replace("|", "\\|"))
            .append(" | ")
            .append(defaultColumn(key))
            .append(" | ")
            .append(key.doc().replace("|", "\\|"))
            .append(modesNote(key))
            .append(" |\n");
      }
    }
    md.append("\n#### Kafka producer defaults set by the relay\n\n");
    md.append("Any of these can be overridden as `kafka.producer.<setting>`, except where noted");
    md.append(
        " under `"
            + RelayConfigKeys.KAFKA_BOOTSTRAP_SERVERS.name()
            + "`.\n\n| setting | cdc mode | polling mode |\n|---|---|---|\n");
    Map<String, String> cdc = ProducerSettings.defaults(RelayMode.CDC);
    Map<String, String> polling = ProducerSettings.defaults(RelayMode.POLLING);
    for (Map.Entry<String, String> e : cdc.entrySet()) {
      md.append("| `")
          .append(e.getKey())
          .append("` | `")
          .append(e.getValue())
          .append("` | `")
          .append(polling.get(e.getKey()))
          .append("` |\n");
    }
    md.append("\nIn CDC mode the producer never gives up on a record (`delivery.timeout.ms` is");
    md.append(
        " the largest value Kafka allows): with idempotence this keeps every key's records in");
    md.append(
        " order and free of duplicates through a broker outage, and the relay logs a warning");
    md.append(
        " while Kafka is unreachable. A finite value makes records that expire be re-sent by");
    md.append(" the relay, which can put a later record of the same key before them.\n");
    return md.toString();
  }

  /**
   * The example properties file: every key with its documentation, required keys set to example
   * values, optional keys commented out at their defaults.
   *
   * @return the file's text
   */
  public static String exampleProperties() {
    StringBuilder p = new StringBuilder();
    p.append("# outbox-relay configuration: every key, generated from the relay's declarations.\n");
    p.append("# Run: outbox-relay run --config relay.properties [--mode cdc|polling]\n");
    p.append("# Values may be ${env:NAME} or ${file:/path} (e.g. for passwords).\n");
    p.append(
        "# A backslash starts an escape (\\t, \\n, \\uXXXX; \\\\ is one backslash), so keep\n");
    p.append("# secrets with backslashes in a ${file:...} or ${env:...}, which are read as is.\n");
    p.append("# Durations are a whole number and a unit: ms, s, m, h or d (250ms, 30s, 7d).\n");
    p.append("# Unknown keys are errors, except kafka.producer.* (Kafka producer settings) and\n");
    p.append("# debezium.* (embedded Debezium engine settings), passed on without the prefix.\n");
    for (ConfigKey.Group group : ConfigKey.Group.values()) {
      List<ConfigKey<?>> keys = keysOf(group);
      if (keys.isEmpty()) {
        continue;
      }
      p.append("\n# ---- ").append(group.title()).append(" ----\n");
      for (ConfigKey<?> key : keys) {
        p.append('\n');
        for (String line : wrap(key.doc() + modesNote(key), 76)) {
          p.append("# ").append(line).append('\n');
        }
        if (key.range() != null) {
          p.append("# From ").append(key.range()).append(".\n");
        }
        boolean required = !key.requiredIn().isEmpty();
        if (required) {
          p.append("# Required").append(modesRequired(key)).append(".\n");
          p.append(key.name()).append('=').append(key.example()).append('\n');
        } else if (key.type().isSecret()) {
          p.append('#').append(key.name()).append("=\n");
        } else if (key.defaultValue() == null && key.defaultText() != null) {
          p.append("# Default: ").append(key.defaultText()).append(".\n");
          p.append('#').append(key.name()).append("=\n");
        } else {
          p.append('#').append(key.name()).append('=').append(key.defaultText()).append('\n');
        }
      }
    }
    p.append("\n# ---- Pass-through examples ----\n");
    p.append("#kafka.producer.compression.type=zstd\n");
    p.append("#kafka.producer.security.protocol=SASL_SSL\n");
    p.append("#debezium.database.ssl.mode=required\n");
    return p.toString();
  }

  private static String typeColumn(ConfigKey<?> key) {
    return key.type().description() + (key.range() == null ? "" : ", " + key.range());
  }

  private static List<ConfigKey<?>> keysOf(ConfigKey.Group group) {
    return RelayConfigKeys.ALL.stream()
        .filter(k -> k.group() == group)
        .collect(Collectors.toList());
  }

  private static String defaultColumn(ConfigKey<?> key) {
    if (!key.requiredIn().isEmpty()) {
      return "required" + modesRequired(key);
    }
    if (key.type().isSecret()) {
      return "(empty)";
    }
    return key.defaultText() == null
        ? "(none)"
        : key.defaultText().isEmpty() ? "(empty)" : "`" + key.defaultText() + "`";
  }

  private static String modesRequired(ConfigKey<?> key) {
    return key.requiredIn().size() == RelayMode.values().length
        ? ""
        : " in " + lower(key.requiredIn().iterator().next()) + " mode";
  }

  private static String modesNote(ConfigKey<?> key) {
    if (key.usedIn().size() == RelayMode.values().length) {
      return "";
    }
    return " ("
        + key.usedIn().stream()
            .map(ConfigReference::lower)
            .sorted()
            .collect(Collectors.joining(", "))
        + " mode only)";
  }

  private static String lower(Enum<?> e) {
    return e.name().toLowerCase(Locale.ROOT);
  }

  private static List<String> wrap(String text, int width) {
    List<String> lines = new ArrayList<>();
    StringBuilder line = new StringBuilder();
    for (String word : text.split(" ")) {
      if (line.length() > 0 && line.length() + 1 + word.length() > width) {
        lines.add(line.toString());
        line.setLength(0);
      }
      if (line.length() > 0) {
        line.append(' ');
      }
      line.append(word);
    }
    if (line.length() > 0) {
      lines.add(line.toString());
    }
    return lines;
  }

  /**
   * Rewrites the generated files under a project root.
   *
   * @param args the project root (default: the current directory)
   * @throws IOException when a file cannot be read or written, or {@value #REFERENCE_FILE} lacks
   *     the markers
   */
  public static void main(String[] args) throws IOException {
    Path root = Path.of(args.length > 0 ? args[0] : ".");
    Files.writeString(root.resolve(EXAMPLE_FILE), exampleProperties(), StandardCharsets.UTF_8);
    Path reference = root.resolve(REFERENCE_FILE);
    String text = Files.readString(reference, StandardCharsets.UTF_8);
    int begin = text.indexOf(BEGIN);
    int end = text.indexOf(END);
    if (begin < 0 || end < begin) {
      throw new IOException(reference + " has no " + BEGIN + " ... " + END + " section");
    }
    text =
        text.substring(0, begin + BEGIN.length()) + "\n" + markdown() + "\n" + text.substring(end);
    Files.writeString(reference, text, StandardCharsets.UTF_8);
  }
}
