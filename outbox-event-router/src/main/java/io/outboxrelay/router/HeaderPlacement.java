package io.outboxrelay.router;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * One more column of the outbox table published as a header, as Debezium's {@code
 * table.fields.additional.placement} places it: {@code column:header[:alias]}, the header named
 * {@code alias} (the column's name when there is none) and valued with the column's value as text.
 * The readers turn the value into text (see the relay's documentation for each column type) and
 * hand it over in {@link OutboxEvent#placedHeaders()}; a NULL value publishes no header. Immutable.
 *
 * @param column the column; never blank
 * @param header the header's name; never blank
 */
public record HeaderPlacement(String column, String header) {

  /** The only placement supported: Debezium's {@code header}. */
  public static final String HEADER = "header";

  /**
   * Checks the fields.
   *
   * @throws IllegalArgumentException when either is blank
   */
  public HeaderPlacement {
    Objects.requireNonNull(column, "column");
    Objects.requireNonNull(header, "header");
    if (column.isBlank() || header.isBlank()) {
      throw new IllegalArgumentException("a placement needs a column and a header name");
    }
  }

  /**
   * Parses a comma-separated list of {@code column:header[:alias]} entries, Debezium's format
   * (blanks around each part are ignored).
   *
   * @param spec the list; blank for none
   * @return the placements in the list's order
   * @throws IllegalArgumentException naming the first entry that is not {@code
   *     column:header[:alias]}, or that asks for Debezium's {@code envelope} or {@code partition}
   *     placement, which the relay does not support
   */
  public static List<HeaderPlacement> parseList(String spec) {
    List<HeaderPlacement> placements = new ArrayList<>();
    if (spec == null || spec.isBlank()) {
      return List.of();
    }
    for (String entry : spec.split(",", -1)) {
      String[] parts = entry.split(":", -1);
      String column = parts[0].trim();
      if (parts.length < 2 || parts.length > 3 || column.isEmpty()) {
        throw new IllegalArgumentException(
            "'" + entry.trim() + "' is not column:header or column:header:alias");
      }
      String placement = parts[1].trim().toLowerCase(Locale.ROOT);
      if (placement.equals("envelope") || placement.equals("partition")) {
        throw new IllegalArgumentException(
            "'"
                + entry.trim()
                + "' asks for the "
                + placement
                + " placement, which is not supported: the payload is published as its raw"
                + " bytes and the partition follows the key; place the column as a header");
      }
      if (!placement.equals(HEADER)) {
        throw new IllegalArgumentException(
            "'" + entry.trim() + "' has placement '" + parts[1].trim() + "': use header");
      }
      String alias = parts.length == 3 ? parts[2].trim() : column;
      if (alias.isEmpty()) {
        throw new IllegalArgumentException("'" + entry.trim() + "' has an empty alias");
      }
      placements.add(new HeaderPlacement(column, alias));
    }
    return List.copyOf(placements);
  }

  /**
   * This placement in the list format of {@link #parseList}.
   *
   * @return {@code column:header:alias}, or {@code column:header} when the header is the column's
   *     name
   */
  @Override
  public String toString() {
    return header.equals(column) ? column + ":" + HEADER : column + ":" + HEADER + ":" + header;
  }
}
