package io.outboxrelay.relay.testing;

import io.outboxrelay.relay.cli.OutboxRelayCli;
import io.outboxrelay.testsupport.outbox.RelayRun;
import io.outboxrelay.testsupport.stack.LogFiles;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.Reader;
import java.io.Serializable;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.Appender;
import org.apache.logging.log4j.core.Layout;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;
import org.apache.logging.log4j.core.filter.AbstractFilter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * {@code outbox-relay <args>} run in this JVM, on a thread of its own, as the distribution runs it
 * (the same command line, the same logging configuration and layout): a start costs a fraction of a
 * child process's CPU, most of which is loading and compiling the relay. For runs that nothing
 * kills or freezes: a {@link io.outboxrelay.testsupport.outbox.RelayProcess} does that.
 *
 * <p>Its log holds what its own threads log (the thread group of the thread running the command,
 * which every thread it starts joins), what they do not catch, and what the command prints: the
 * console of a child process, written to {@code <dir>/<name>.log} as it comes and kept off this
 * JVM's console, until the command returns. {@link #terminate()} interrupts the command's thread,
 * which stops the relay as SIGTERM does. Several runs may share the JVM, each with its own log, but
 * not one {@code relay.name} (its JMX metrics are the JVM's). Unlike a child's exit, the end of a
 * run kills nothing: a thread the relay failed to stop is named in a warning and lives on.
 */
public final class InProcessRun implements RelayRun {

  private static final Logger LOG = LoggerFactory.getLogger(InProcessRun.class);

  /** How long {@link #close()} waits for a graceful stop (a child gets 15 s, then SIGKILL). */
  private static final Duration CLOSE_GRACE = Duration.ofSeconds(60);

  /** The thread groups of the runs under way: the console does not show their lines. */
  private static final Set<ThreadGroup> RUNS = ConcurrentHashMap.newKeySet();

  /**
   * The {@code relay.name}s of the runs under way. Two runs of one name at once would share this
   * JVM's JMX metrics, which the relay reads its reader's state from (Debezium's, by name): the one
   * would report the other's lag and readiness. Such tests run one of them as a child process.
   */
  private static final Set<String> NAMES = ConcurrentHashMap.newKeySet();

  /** Numbers the runs' appenders: a name may be run again. */
  private static final AtomicInteger STARTS = new AtomicInteger();

  /** Whether the console's appender skips the runs' lines yet. */
  private static boolean consoleFiltered;

  /** This JVM's own handlers for TERM and INT, which a run's command replaces. */
  private static SignalHandler jvmTerm;

  private static SignalHandler jvmInt;

  private final String name;
  private final String relayName;
  private final Path logFile;
  private final StringBuilder log = new StringBuilder(); // guarded by itself
  private final OutputStream file;
  private final ThreadGroup group;
  private final Thread thread;
  private final Appender appender;
  private final AtomicBoolean stopSent = new AtomicBoolean();
  private volatile int exitCode = -1;

  private InProcessRun(String name, Path logDir, String[] args) {
    this.name = name;
    this.relayName = relayName(args);
    this.logFile = logDir.resolve(name + ".log");
    try {
      this.file = Files.newOutputStream(logFile);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    // What a thread of the run does not catch goes to its log, as a child's stderr would.
    this.group =
        new ThreadGroup("relay-" + name) {
          @Override
          public void uncaughtException(Thread t, Throwable e) {
            StringWriter trace = new StringWriter();
            e.printStackTrace(new PrintWriter(trace));
            append("Exception in thread \"" + t.getName() + "\" " + trace);
          }
        };
    this.appender =
        new RunAppender(
            "in-process-" + name + "-" + STARTS.incrementAndGet(),
            consoleLayout(),
            group,
            this::append);
    this.thread =
        new Thread(
            group,
            () -> {
              try (PrintWriter out = new PrintWriter(new LogWriter(this), true)) {
                exitCode = OutboxRelayCli.execute(out, out, args);
              } catch (RuntimeException | Error e) {
                append("command failed: " + e + "\n");
                exitCode = 1;
              } finally {
                detach(); // what the run's threads log after the command returned is not kept
              }
            },
            "relay-" + name);
  }

  /**
   * Starts {@code outbox-relay <args>} in this JVM.
   *
   * @param name a name for the run and its log file
   * @param logDir where the log goes
   * @param args the command line's arguments
   * @return the run, under way
   */
  public static InProcessRun start(String name, Path logDir, String... args) {
    InProcessRun run = new InProcessRun(name, logDir, args);
    synchronized (InProcessRun.class) {
      if (run.relayName != null && !NAMES.add(run.relayName)) {
        run.closeFile();
        throw new IllegalStateException(
            "relay.name '"
                + run.relayName
                + "' already runs in this JVM: two runs of one name share its JMX metrics; run one"
                + " as a RelayProcess");
      }
      if (RUNS.isEmpty()) {
        jvmTerm = ownHandler("TERM");
        jvmInt = ownHandler("INT");
      }
      RUNS.add(run.group);
      attach(run.appender);
    }
    LOG.info(
        "[{}] outbox-relay {} in this JVM, log in {}", name, String.join(" ", args), run.logFile);
    run.thread.start();
    return run;
  }

  /**
   * Starts {@code outbox-relay run --config <config> <more>} and waits until it is ready.
   *
   * @param name a name for the run and its log file
   * @param logDir where the log goes
   * @param config the properties file
   * @param more further arguments, e.g. {@code --mode polling}
   * @return the ready run
   */
  public static InProcessRun run(String name, Path logDir, Path config, String... more) {
    InProcessRun run = start(name, logDir, runArgs(config.toString(), more));
    try {
      run.awaitReady();
    } catch (RuntimeException e) {
      try {
        run.close();
      } catch (RuntimeException stillRunning) {
        e.addSuppressed(stillRunning);
      }
      throw e;
    }
    return run;
  }

  /** {@code run --config <config> <more>}. */
  static String[] runArgs(String config, String... more) {
    String[] args = new String[3 + more.length];
    args[0] = "run";
    args[1] = "--config";
    args[2] = config;
    System.arraycopy(more, 0, args, 3, more.length);
    return args;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public void awaitReady() {
    awaitLogLine(".*\\] ready: .*", Duration.ofSeconds(90));
  }

  @Override
  public String awaitLogLine(String regex, Duration timeout) {
    Pattern pattern = Pattern.compile(regex);
    long deadline = System.nanoTime() + timeout.toNanos();
    int from = 0;
    while (true) {
      boolean alive = thread.isAlive(); // first: lines logged just before the end are read below
      String text;
      synchronized (log) {
        int end = log.lastIndexOf("\n") + 1;
        text = end > from ? log.substring(from, end) : "";
        from = Math.max(from, end);
      }
      for (String line : (Iterable<String>) text.lines()::iterator) {
        if (pattern.matcher(line).find()) {
          return line;
        }
      }
      if (!alive) {
        throw new IllegalStateException(
            name + " ended with code " + exitCode + " before a line matching " + regex + tail());
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(
            "no line of " + name + " matched " + regex + " within " + timeout + tail());
      }
      pause(20);
    }
  }

  @Override
  public String log() {
    synchronized (log) {
      return log.toString();
    }
  }

  /**
   * Interrupts the command's thread, once: the relay drains and stops, as on SIGTERM. A second call
   * does nothing, as a second SIGTERM does (an interrupt would cut the drain short).
   */
  @Override
  public void terminate() {
    if (stopSent.compareAndSet(false, true)) {
      LOG.info("[{}] stop requested (as SIGTERM)", name);
      thread.interrupt();
    }
  }

  @Override
  public boolean isAlive() {
    return thread.isAlive();
  }

  @Override
  public int waitFor(Duration timeout) {
    try {
      thread.join(timeout.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for " + name, e);
    }
    if (thread.isAlive()) {
      throw new IllegalStateException(name + " still running after " + timeout + tail());
    }
    return exitCode;
  }

  /**
   * Stops the run if it has not ended and detaches its log.
   *
   * @throws IllegalStateException when it does not end within 60 s of the stop request: nothing can
   *     kill a thread, and a relay left running would skew the tests after it
   */
  @Override
  public void close() {
    if (thread.isAlive()) {
      terminate();
      waitFor(CLOSE_GRACE);
    }
  }

  private void detach() {
    synchronized (InProcessRun.class) {
      if (!RUNS.remove(group)) {
        return;
      }
      if (relayName != null) {
        NAMES.remove(relayName);
      }
      LoggerConfig root = configuration().getRootLogger();
      root.removeAppender(appender.getName());
      context().updateLoggers();
      appender.stop();
      if (RUNS.isEmpty()) {
        Signal.handle(new Signal("TERM"), jvmTerm);
        Signal.handle(new Signal("INT"), jvmInt);
      }
    }
    Thread[] left = new Thread[group.activeCount() + 8];
    int n = group.enumerate(left);
    for (int i = 0; i < n; i++) {
      if (left[i] != Thread.currentThread() && !left[i].isDaemon()) {
        try {
          left[i].join(2_000); // a client's thread may be on its way out
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        if (left[i].isAlive()) {
          LOG.warn("[{}] thread {} still runs after the command ended", name, left[i].getName());
        }
      }
    }
    closeFile();
  }

  private void closeFile() {
    synchronized (log) {
      try {
        file.close();
      } catch (IOException e) {
        LOG.warn("[{}] closing {}: {}", name, logFile, e.toString());
      }
    }
  }

  /** The {@code relay.name} of the {@code --config} file among the arguments, if it has one. */
  private static String relayName(String[] args) {
    for (int i = 0; i + 1 < args.length; i++) {
      if (args[i].equals("--config")) {
        Properties p = new Properties();
        try (Reader in = Files.newBufferedReader(Path.of(args[i + 1]))) {
          p.load(in);
        } catch (IOException | RuntimeException e) {
          return null; // the command reports a file it cannot read
        }
        return p.getProperty("relay.name");
      }
    }
    return null;
  }

  private void append(String text) {
    synchronized (log) {
      log.append(text);
      try {
        file.write(text.getBytes(StandardCharsets.UTF_8));
        file.flush();
      } catch (IOException e) {
        // Closed once the command ended; the log in memory is what tests read.
      }
    }
  }

  private String tail() {
    return LogFiles.labelledTail("log of " + name, logFile, 40);
  }

  private static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /**
   * The handler this JVM has for a signal, read by replacing it and putting it back. With a handler
   * of no effect, not {@code SIG_IGN}: an ignored signal stays ignored in every child process this
   * JVM starts afterwards (brokers that then ignored SIGTERM), even once the handler is put back.
   */
  private static SignalHandler ownHandler(String signal) {
    Signal s = new Signal(signal);
    SignalHandler own = Signal.handle(s, ignored -> {});
    Signal.handle(s, own);
    return own;
  }

  private static LoggerContext context() {
    return (LoggerContext) LogManager.getContext(false);
  }

  private static Configuration configuration() {
    return context().getConfiguration();
  }

  /**
   * The distribution's console layout ({@code log4j2.xml}, which this JVM's tests read as the relay
   * does); on first use, the console stops showing the runs' lines, which their files have.
   */
  private static Layout<? extends Serializable> consoleLayout() {
    synchronized (InProcessRun.class) {
      Configuration config = configuration();
      Appender console = config.getAppender("stdout");
      if (console == null) {
        throw new IllegalStateException(
            "no appender 'stdout': this JVM does not log with the relay's log4j2.xml");
      }
      if (!consoleFiltered) {
        LoggerConfig root = config.getRootLogger();
        root.removeAppender("stdout");
        root.addAppender(console, null, new NotInRunFilter());
        context().updateLoggers();
        consoleFiltered = true;
      }
      return console.getLayout();
    }
  }

  private static void attach(Appender appender) {
    appender.start();
    configuration().getRootLogger().addAppender(appender, null, null);
    context().updateLoggers();
  }

  private static boolean inRun(ThreadGroup runGroup) {
    return runGroup.parentOf(Thread.currentThread().getThreadGroup());
  }

  /** Passes the lines logged by a thread of no run. */
  private static final class NotInRunFilter extends AbstractFilter {
    @Override
    public Result filter(LogEvent event) {
      for (ThreadGroup run : RUNS) {
        if (inRun(run)) {
          return Result.DENY;
        }
      }
      return Result.NEUTRAL;
    }
  }

  /** Formats the lines a run's threads log with the console's layout. */
  private static final class RunAppender extends AbstractAppender {
    private final ThreadGroup group;
    private final Consumer<String> sink;

    RunAppender(
        String name,
        Layout<? extends Serializable> layout,
        ThreadGroup group,
        Consumer<String> sink) {
      super(name, null, layout, true, Property.EMPTY_ARRAY);
      this.group = group;
      this.sink = sink;
    }

    @Override
    public void append(LogEvent event) {
      if (inRun(group)) {
        sink.accept(new String(getLayout().toByteArray(event), StandardCharsets.UTF_8));
      }
    }
  }

  /** The command's output and errors, into the run's log as a child's console has them. */
  private static final class LogWriter extends Writer {
    private final InProcessRun run;

    LogWriter(InProcessRun run) {
      this.run = run;
    }

    @Override
    public void write(char[] chars, int off, int len) {
      run.append(new String(chars, off, len));
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  }

  @Override
  public String toString() {
    return name + (thread.isAlive() ? " (in this JVM, running)" : " (in this JVM, ended)");
  }
}
