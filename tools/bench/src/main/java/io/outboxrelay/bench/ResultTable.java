package io.outboxrelay.bench;

import java.util.ArrayList;
import java.util.List;

/** The benchmark's output: one row per figure, printed as a Markdown table. */
final class ResultTable {

  private record Row(String benchmark, String figure, String target, String note) {}

  private final List<Row> rows = new ArrayList<>();

  void add(String benchmark, String figure, String target, String note) {
    rows.add(new Row(benchmark, figure, target, note));
    System.err.println(
        "  -> " + benchmark + ": " + figure + (note.isEmpty() ? "" : " (" + note + ")"));
  }

  boolean isEmpty() {
    return rows.isEmpty();
  }

  String render() {
    StringBuilder sb =
        new StringBuilder("| benchmark | result | target | notes |\n|---|---|---|---|\n");
    for (Row r : rows) {
      sb.append("| ")
          .append(r.benchmark)
          .append(" | ")
          .append(r.figure)
          .append(" | ")
          .append(r.target)
          .append(" | ")
          .append(r.note)
          .append(" |\n");
    }
    return sb.toString();
  }
}
