package io.outboxrelay.relay.metrics;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.helpers.MessageFormatter;

/** An SLF4J logger that keeps what it is given, as {@code "LEVEL message"} lines. Tests only. */
public final class RecordingLogger {

  private final List<String> lines = new ArrayList<>();
  private final Logger logger =
      (Logger)
          Proxy.newProxyInstance(
              Logger.class.getClassLoader(),
              new Class<?>[] {Logger.class},
              (proxy, method, args) -> {
                String level = method.getName();
                if (method.getReturnType() == boolean.class) {
                  return true; // isXxxEnabled
                }
                if (args != null
                    && args.length > 0
                    && args[0] instanceof String format
                    && List.of("trace", "debug", "info", "warn", "error").contains(level)) {
                  Object[] rest = Arrays.copyOfRange(args, 1, args.length);
                  if (rest.length == 1 && rest[0] instanceof Object[] array) {
                    rest = array;
                  }
                  synchronized (lines) {
                    lines.add(
                        level.toUpperCase(java.util.Locale.ROOT)
                            + " "
                            + MessageFormatter.arrayFormat(format, rest).getMessage());
                  }
                }
                return method.getName().equals("getName") ? "recording" : null;
              });

  /** The logger to hand to the code under test. */
  public Logger logger() {
    return logger;
  }

  /** The lines logged so far. */
  public List<String> lines() {
    synchronized (lines) {
      return List.copyOf(lines);
    }
  }
}
