package io.outboxrelay.idempotency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Savepoint;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TransactionGuardTest {

  private final List<String> calls = new ArrayList<>();
  private final Connection guarded = TransactionGuard.guard(recordingConnection());

  @Test
  void refusesCallsThatWouldEndOrDetachTheTransaction() {
    assertThatThrownBy(guarded::commit).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(guarded::rollback).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> guarded.setAutoCommit(true)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(guarded::close).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> guarded.abort(Runnable::run))
        .isInstanceOf(IllegalStateException.class);

    assertThat(calls).isEmpty();
  }

  @Test
  void passesEverythingElseThroughIncludingSavepoints() throws Exception {
    guarded.prepareStatement("SELECT 1");
    Savepoint savepoint = guarded.setSavepoint();
    guarded.rollback(savepoint);
    guarded.getAutoCommit();

    assertThat(calls)
        .containsExactly("prepareStatement", "setSavepoint", "rollback", "getAutoCommit");
  }

  private Connection recordingConnection() {
    return (Connection)
        Proxy.newProxyInstance(
            Connection.class.getClassLoader(),
            new Class<?>[] {Connection.class},
            (proxy, method, args) -> {
              calls.add(method.getName());
              return method.getReturnType() == boolean.class ? Boolean.FALSE : null;
            });
  }
}
