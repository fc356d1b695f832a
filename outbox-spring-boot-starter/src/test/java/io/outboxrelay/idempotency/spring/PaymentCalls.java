package io.outboxrelay.idempotency.spring;

import io.outboxrelay.idempotency.spring.PaymentApplication.Call;
import java.util.List;

/** A payments listener that records what each of its calls saw, for the tests to check. */
public interface PaymentCalls {

  /** Every call, in order. */
  List<Call> calls();

  /** How often the listener ran for the event. */
  int calls(String eventId);
}
