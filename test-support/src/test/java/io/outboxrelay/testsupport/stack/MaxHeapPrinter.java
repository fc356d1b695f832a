package io.outboxrelay.testsupport.stack;

/** A main class for child-JVM tests: prints the JVM's maximum heap in MiB and its arguments. */
public final class MaxHeapPrinter {

  private MaxHeapPrinter() {}

  /**
   * Prints {@code max-heap-mib=<n> args=<args>}.
   *
   * @param args echoed
   */
  public static void main(String[] args) {
    System.out.println(
        "max-heap-mib="
            + Runtime.getRuntime().maxMemory() / (1024 * 1024)
            + " args="
            + String.join(",", args));
  }
}
