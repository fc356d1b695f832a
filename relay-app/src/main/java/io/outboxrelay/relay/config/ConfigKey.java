package io.outboxrelay.relay.config;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * One declared configuration key: name, type, default, checks, the modes that use it and its
 * documentation. The reference documentation and the example properties file are generated from
 * these declarations. Instances are immutable and thread-safe.
 *
 * @param <T> the value type
 */
public final class ConfigKey<T> {

  /** Sections of the reference documentation, in order. */
  public enum Group {
    /** Relay-wide settings. */
    RELAY("Relay"),
    /** The source database. */
    SOURCE("Source database"),
    /** Topic, key and header routing. */
    ROUTER("Routing"),
    /** The Kafka producer. */
    KAFKA("Kafka"),
    /** CDC mode. */
    CDC("CDC mode"),
    /** Polling mode. */
    POLLING("Polling mode"),
    /** The HTTP endpoint for metrics and health checks. */
    HTTP("HTTP endpoint");

    private final String title;

    Group(String title) {
      this.title = title;
    }

    /**
     * The section title.
     *
     * @return the title
     */
    public String title() {
      return title;
    }
  }

  private final String name;
  private final Group group;
  private final ValueType<T> type;
  private final T defaultValue;
  private final String defaultText;
  private final Set<RelayMode> requiredIn;
  private final Set<RelayMode> usedIn;
  private final List<Function<T, String>> checks;
  private final Checks.Range<?> range;
  private final String exemptKey; // with exemptValue: the key is not required where it has it
  private final String exemptValue;
  private final String doc;
  private final String example;

  private ConfigKey(Builder<T> b) {
    this.name = b.name;
    this.group = Objects.requireNonNull(b.group, "group");
    this.type = b.type;
    this.defaultValue = b.defaultValue;
    this.defaultText =
        b.defaultText != null
            ? b.defaultText
            : b.defaultValue == null ? null : type.format(b.defaultValue);
    this.requiredIn = Set.copyOf(b.requiredIn);
    this.exemptKey = b.exemptKey;
    this.exemptValue = b.exemptValue;
    this.usedIn = Set.copyOf(b.usedIn);
    this.checks = List.copyOf(b.checks);
    this.range =
        (Checks.Range<?>)
            checks.stream().filter(c -> c instanceof Checks.Range).findFirst().orElse(null);
    this.doc = Objects.requireNonNull(b.doc, "doc");
    this.example = b.example;
    if (!requiredIn.isEmpty() && example == null) {
      throw new IllegalStateException(name + " is required somewhere but declares no example");
    }
  }

  /**
   * Starts declaring a key.
   *
   * @param name the key as written in the properties file
   * @param type its value type
   * @param <T> the value type
   * @return a builder
   */
  public static <T> Builder<T> define(String name, ValueType<T> type) {
    return new Builder<>(name, type);
  }

  /**
   * The key's name.
   *
   * @return the name as written in the properties file
   */
  public String name() {
    return name;
  }

  /**
   * The documentation section.
   *
   * @return the group
   */
  public Group group() {
    return group;
  }

  /**
   * The value type.
   *
   * @return the type
   */
  public ValueType<T> type() {
    return type;
  }

  /**
   * The default, or {@code null} when the key has none.
   *
   * @return the default
   */
  public T defaultValue() {
    return defaultValue;
  }

  /**
   * The default as documented, or {@code null} when there is none.
   *
   * @return the default's text
   */
  public String defaultText() {
    return defaultText;
  }

  /**
   * Whether the key must be set in the given mode.
   *
   * @param mode the relay mode
   * @return true when required
   */
  public boolean isRequiredIn(RelayMode mode) {
    return requiredIn.contains(mode);
  }

  /**
   * Whether the key must be set in the given mode, given the other settings: a key required in a
   * mode may be exempt where another key has a given value ({@code cdc.server.id} on PostgreSQL).
   *
   * @param mode the relay mode
   * @param settings the settings as given, by key
   * @return true when required
   */
  public boolean isRequiredIn(RelayMode mode, java.util.Map<String, String> settings) {
    if (!isRequiredIn(mode)) {
      return false;
    }
    String other = exemptKey == null ? null : settings.get(exemptKey);
    return other == null || !other.trim().equalsIgnoreCase(exemptValue);
  }

  /**
   * Whether the key has any effect in the given mode.
   *
   * @param mode the relay mode
   * @return true when used
   */
  public boolean isUsedIn(RelayMode mode) {
    return usedIn.contains(mode);
  }

  /**
   * The modes that require the key.
   *
   * @return an unmodifiable set, empty when the key is optional everywhere
   */
  public Set<RelayMode> requiredIn() {
    return requiredIn;
  }

  /**
   * The modes the key has an effect in.
   *
   * @return an unmodifiable set
   */
  public Set<RelayMode> usedIn() {
    return usedIn;
  }

  /**
   * The documentation; it says what the key does and never restates the default.
   *
   * @return the doc text
   */
  public String doc() {
    return doc;
  }

  /**
   * The value the example properties file shows for a required key.
   *
   * @return the example, or {@code null} for a key that is never required
   */
  public String example() {
    return example;
  }

  /**
   * The values the key accepts, for the reference documentation: {@code 1 to 65535}, {@code 1s to
   * 1d}.
   *
   * @return the range, or {@code null} when the key declares none
   */
  public String range() {
    return range == null ? null : range.span();
  }

  /**
   * Parses and checks a value.
   *
   * @param text the trimmed text
   * @return the value
   * @throws IllegalArgumentException with a reason (without the key name) when invalid
   */
  public T parse(String text) {
    T value;
    try {
      value = type.parse(text);
    } catch (ValueType.OutOfRangeException e) {
      // Too large for the type itself: say what the key accepts, not what a long holds.
      throw new IllegalArgumentException(
          e.getMessage() + (range != null ? ": must be " + range : ""), e);
    }
    for (Function<T, String> check : checks) {
      String problem = check.apply(value);
      if (problem != null) {
        throw new IllegalArgumentException(problem);
      }
    }
    return value;
  }

  @Override
  public String toString() {
    return name;
  }

  /**
   * Builds a {@link ConfigKey}. Not thread-safe.
   *
   * @param <T> the value type
   */
  public static final class Builder<T> {
    private final String name;
    private final ValueType<T> type;
    private Group group;
    private T defaultValue;
    private String defaultText;
    private final Set<RelayMode> requiredIn = EnumSet.noneOf(RelayMode.class);
    private String exemptKey;
    private String exemptValue;
    private final Set<RelayMode> usedIn = EnumSet.allOf(RelayMode.class);
    private final List<Function<T, String>> checks = new ArrayList<>();
    private String doc;
    private String example;

    private Builder(String name, ValueType<T> type) {
      this.name = Objects.requireNonNull(name, "name");
      this.type = Objects.requireNonNull(type, "type");
    }

    /**
     * Sets the documentation section.
     *
     * @param group the group
     * @return this builder
     */
    public Builder<T> group(Group group) {
      this.group = group;
      return this;
    }

    /**
     * Sets the default value.
     *
     * @param value the default
     * @return this builder
     */
    public Builder<T> defaultValue(T value) {
      this.defaultValue = value;
      return this;
    }

    /**
     * Documents a default that depends on other keys (the key itself has none).
     *
     * @param text how the default is chosen
     * @return this builder
     */
    public Builder<T> defaultText(String text) {
      this.defaultText = text;
      return this;
    }

    /**
     * Makes the key required in the given modes.
     *
     * @param modes the modes
     * @return this builder
     */
    public Builder<T> requiredIn(RelayMode... modes) {
      requiredIn.addAll(List.of(modes));
      return this;
    }

    /**
     * Lifts the requirement where another key has a value (compared without regard to case).
     *
     * @param other the other key
     * @param value its value that makes this key optional
     * @return this builder
     */
    public Builder<T> notRequiredWhere(ConfigKey<?> other, String value) {
      this.exemptKey = other.name();
      this.exemptValue = value;
      return this;
    }

    /**
     * Limits the modes the key has an effect in (default: all).
     *
     * @param modes the modes
     * @return this builder
     */
    public Builder<T> usedIn(RelayMode... modes) {
      usedIn.clear();
      usedIn.addAll(List.of(modes));
      return this;
    }

    /**
     * Adds a check.
     *
     * @param check returns {@code null} when the value is fine, otherwise what is wrong
     * @return this builder
     */
    public Builder<T> check(Function<T, String> check) {
      checks.add(check);
      return this;
    }

    /**
     * Sets the documentation.
     *
     * @param doc what the key does; do not restate the default
     * @return this builder
     */
    public Builder<T> doc(String doc) {
      this.doc = doc;
      return this;
    }

    /**
     * Sets the value the example properties file shows; every required key has one.
     *
     * @param value a valid value
     * @return this builder
     */
    public Builder<T> example(String value) {
      this.example = value;
      return this;
    }

    /**
     * Finishes the declaration.
     *
     * @return the key
     */
    public ConfigKey<T> build() {
      return new ConfigKey<>(this);
    }
  }
}
