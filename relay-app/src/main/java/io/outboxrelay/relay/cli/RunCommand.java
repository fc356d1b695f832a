package io.outboxrelay.relay.cli;

import io.outboxrelay.relay.Relay;
import io.outboxrelay.relay.RelayFailure;
import io.outboxrelay.relay.StartupCheckException;
import io.outboxrelay.relay.config.RelayConfig;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.bridge.SLF4JBridgeHandler;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code outbox-relay run}: runs the relay until SIGTERM/SIGINT (graceful drain, exit 0) or a fatal
 * failure (exit 1). A configuration or database set-up problem exits with 2 before anything is
 * published. Once the configuration is read, an interrupt of the thread running the command is a
 * stop request as SIGTERM is, while the relay starts and once it runs.
 *
 * <p>A failure is one ERROR line that says what to do; its stack trace goes to DEBUG (logger {@code
 * io.outboxrelay}, {@code -Doutbox.relay.log.level=DEBUG}), so the console stays readable.
 */
@Command(
    name = "run",
    mixinStandardHelpOptions = true,
    description = "Run the relay until SIGTERM or SIGINT, which drain gracefully.")
final class RunCommand implements Callable<Integer> {

  private static final Logger LOG = LoggerFactory.getLogger(RunCommand.class);

  @Mixin ConfigOptions options;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    RelayConfig config = options.load(spec.commandLine().getErr());
    if (config == null) {
      return ExitCodes.CONFIG;
    }
    SLF4JBridgeHandler.removeHandlersForRootLogger();
    SLF4JBridgeHandler.install(); // the binlog client logs through java.util.logging

    CountDownLatch stopRequested = new CountDownLatch(1);
    // A signal while the relay starts (it may wait for Kafka without limit) interrupts the start.
    Thread starter = Thread.currentThread();
    AtomicBoolean starting = new AtomicBoolean(true);
    Signals.onTerminate(
        () -> {
          stopRequested.countDown();
          synchronized (starting) {
            if (starting.get()) {
              starter.interrupt();
            }
          }
        });
    String context = config.logContext();
    config.notices().forEach(n -> LOG.info("[{}] {}", context, n));
    config.warnings().forEach(w -> LOG.warn("[{}] {}", context, w));
    try (Relay relay = Relay.create(config)) {
      try {
        relay.start();
      } catch (InterruptedException e) {
        LOG.info("[{}] stop requested before the relay was ready", context);
        return ExitCodes.OK;
      } catch (StartupCheckException e) {
        e.problems().forEach(p -> LOG.error("[{}] startup check failed: {}", context, p));
        LOG.error("[{}] not started: fix the problems above and start again", context);
        return ExitCodes.CONFIG;
      } catch (RelayFailure e) {
        return failed(context, e);
      } catch (CompletionException e) {
        // The source failed while starting (e.g. a purged binlog position): the cause says why.
        if (e.getCause() instanceof RelayFailure failure) {
          return failed(context, failure);
        }
        throw e;
      } finally {
        synchronized (starting) {
          starting.set(false);
          if (Thread.interrupted()) {
            // A signal that came as the start ended is seen below; so is an interrupt.
            stopRequested.countDown();
          }
        }
      }
      try {
        while (!stopRequested.await(200, TimeUnit.MILLISECONDS)) {
          if (relay.termination().isDone()) {
            break;
          }
        }
      } catch (InterruptedException e) {
        // An interrupt of the thread running the command (an application or a test running it in
        // its own JVM, where no signal is its own) asks for the same graceful stop as SIGTERM. The
        // flag is cleared: the drain below waits.
        LOG.debug("[{}] interrupted: stopping as on SIGTERM", context);
      }
      if (relay.termination().isCompletedExceptionally()) {
        try {
          relay.termination().join();
        } catch (CompletionException e) {
          Throwable cause = e.getCause();
          LOG.error("[{}] stopping after a fatal error: {}", context, cause.getMessage());
          LOG.debug("[{}] stack trace of the fatal error above", context, cause);
        }
        return ExitCodes.FAILURE;
      }
      LOG.info("[{}] stop requested", context);
    }
    return ExitCodes.OK;
  }

  private static int failed(String context, RelayFailure failure) {
    LOG.error("[{}] {}", context, failure.getMessage());
    LOG.debug("[{}] stack trace of the failure above", context, failure);
    return ExitCodes.FAILURE;
  }
}
