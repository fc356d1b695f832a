package io.outboxrelay.examples.usage;

import io.outboxrelay.change.ChangeRecordReader;
import io.outboxrelay.connect.OutboxRouterTransform;
import io.outboxrelay.idempotency.IdempotentProcessor;
import io.outboxrelay.router.EventRouter;
import io.outboxrelay.writer.OutboxWriter;
import io.outboxrelay.writer.spring.Outbox;

/**
 * Compiles against the published libraries, resolved through the BOM: one public type of each.
 * Prints where each came from when run.
 */
public final class LibraryUsage {

  private LibraryUsage() {}

  /**
   * Prints the jar of each library type.
   *
   * @param args unused
   */
  public static void main(String[] args) {
    for (Class<?> type :
        new Class<?>[] {
          OutboxWriter.class,
          Outbox.class,
          IdempotentProcessor.class,
          EventRouter.class,
          ChangeRecordReader.class,
          OutboxRouterTransform.class
        }) {
      System.out.println(
          type.getName() + " from " + type.getProtectionDomain().getCodeSource().getLocation());
    }
  }
}
