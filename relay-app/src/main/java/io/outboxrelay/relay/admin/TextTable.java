package io.outboxrelay.relay.admin;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** A plain-text table with aligned columns, for terminals. Not thread-safe. */
final class TextTable {

  private final List<String[]> rows = new ArrayList<>();
  private final boolean[] rightAligned;

  /**
   * A table with these headers; a header starting with {@code >} is right-aligned (numbers).
   *
   * @param headers the column headers
   */
  TextTable(String... headers) {
    rightAligned = new boolean[headers.length];
    String[] h = new String[headers.length];
    for (int i = 0; i < headers.length; i++) {
      rightAligned[i] = headers[i].startsWith(">");
      h[i] = rightAligned[i] ? headers[i].substring(1) : headers[i];
    }
    rows.add(h);
  }

  TextTable row(Object... cells) {
    String[] r = new String[rightAligned.length];
    for (int i = 0; i < r.length; i++) {
      r[i] = i < cells.length && cells[i] != null ? String.valueOf(cells[i]) : "-";
    }
    rows.add(r);
    return this;
  }

  void print(PrintWriter out) {
    // A table of labels and values has no header line.
    boolean headed = java.util.Arrays.stream(rows.get(0)).anyMatch(h -> !h.isEmpty());
    List<String[]> lines = headed ? rows : rows.subList(1, rows.size());
    int[] width = new int[rightAligned.length];
    for (String[] r : lines) {
      for (int i = 0; i < r.length; i++) {
        width[i] = Math.max(width[i], r[i].length());
      }
    }
    for (String[] r : lines) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < r.length; i++) {
        String pad = " ".repeat(width[i] - r[i].length());
        boolean last = i == r.length - 1;
        line.append(rightAligned[i] ? pad + r[i] : last ? r[i] : r[i] + pad);
        if (!last) {
          line.append("  ");
        }
      }
      out.println(line);
    }
  }

  /** One line of at most {@code max} characters, for a table cell. */
  static String cell(String s, int max) {
    if (s == null) {
      return null;
    }
    String one = s.replace('\n', ' ').replace('\r', ' ');
    return one.length() <= max ? one : Operator.cut(one, max - 3) + "...";
  }
}
