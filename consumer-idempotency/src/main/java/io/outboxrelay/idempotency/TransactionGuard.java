package io.outboxrelay.idempotency;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.Set;

/**
 * The connection a handler sees: the processor's connection with the calls that would end or detach
 * the processor's transaction refused. A handler can still get around it ({@code unwrap}, {@code
 * COMMIT} as SQL); the processor checks auto-commit afterwards to catch the common case.
 */
final class TransactionGuard implements InvocationHandler {

  private static final Set<String> REFUSED =
      Set.of("commit", "setAutoCommit", "close", "abort", "setTransactionIsolation");

  private final Connection connection;

  private TransactionGuard(Connection connection) {
    this.connection = connection;
  }

  static Connection guard(Connection connection) {
    return (Connection)
        Proxy.newProxyInstance(
            Connection.class.getClassLoader(),
            new Class<?>[] {Connection.class},
            new TransactionGuard(connection));
  }

  @Override
  public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
    String name = method.getName();
    boolean plainRollback = name.equals("rollback") && (args == null || args.length == 0);
    if (REFUSED.contains(name) || plainRollback) {
      throw new IllegalStateException(
          "an event handler must not call Connection."
              + name
              + "(): the idempotent processor commits or rolls back the business change together"
              + " with the event id");
    }
    if (name.equals("equals") && args != null && args.length == 1) {
      return proxy == args[0];
    }
    if (name.equals("hashCode") && (args == null || args.length == 0)) {
      return System.identityHashCode(proxy);
    }
    try {
      return method.invoke(connection, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
