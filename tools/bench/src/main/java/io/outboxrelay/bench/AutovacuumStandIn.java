package io.outboxrelay.bench;

import io.outboxrelay.testsupport.stack.PostgresService;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Does autovacuum's job for the outbox table when the server's autovacuum is off (as on a CI
 * machine's PostgreSQL): without it, a run without a pinned xmin would keep its dead tuples too,
 * and the comparison would show nothing. Every {@code autovacuum_naptime} it applies PostgreSQL
 * 15's own rule with the server's settings ({@code relation_needs_vacanalyze}: VACUUM when {@code
 * n_dead_tup} exceeds {@code autovacuum_vacuum_threshold + autovacuum_vacuum_scale_factor *
 * reltuples} or the inserts since the last vacuum exceed the insert threshold and scale factor;
 * ANALYZE when the changes since the last analyze exceed the analyze threshold and scale factor),
 * and runs {@code VACUUM}/{@code ANALYZE} with autovacuum's cost-based delay and cost limit. A
 * server whose autovacuum is on gets nothing from it: {@link #startIfNeeded} returns null.
 *
 * <p>Owns one thread and one session; {@link #close()} cancels a VACUUM in progress and stops it.
 */
final class AutovacuumStandIn implements AutoCloseable {

  private static final String TABLE = "outbox_events";

  private final PostgresService service;
  private final String database;
  private final Map<String, Double> settings;
  private final Thread thread;
  private final AtomicInteger vacuums = new AtomicInteger();
  private final AtomicInteger analyzes = new AtomicInteger();
  private volatile Statement running;
  private volatile boolean closing;
  private volatile String failure;

  private AutovacuumStandIn(
      PostgresService service, String database, Map<String, Double> settings) {
    this.service = service;
    this.database = database;
    this.settings = settings;
    this.thread = new Thread(this::loop, "autovacuum-stand-in");
    thread.setDaemon(true);
  }

  /**
   * Starts the stand-in when the server's autovacuum is off.
   *
   * @param service the server, whose user may VACUUM the table
   * @param database the outbox database
   * @return the running stand-in, or null when the server's autovacuum is on
   * @throws SQLException when the settings cannot be read
   */
  static AutovacuumStandIn startIfNeeded(PostgresService service, String database)
      throws SQLException {
    Map<String, String> raw = new HashMap<>();
    try (Connection c = service.connect(database);
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT name, setting FROM pg_settings WHERE name LIKE 'autovacuum%'"
                    + " OR name = 'vacuum_cost_limit'")) {
      while (rs.next()) {
        raw.put(rs.getString(1), rs.getString(2));
      }
    }
    if ("on".equals(raw.get("autovacuum"))) {
      return null;
    }
    Map<String, Double> numbers = new HashMap<>();
    raw.forEach(
        (k, v) -> {
          try {
            numbers.put(k, Double.parseDouble(v));
          } catch (NumberFormatException e) {
            // on/off settings
          }
        });
    AutovacuumStandIn standIn = new AutovacuumStandIn(service, database, numbers);
    standIn.thread.start();
    return standIn;
  }

  /** One line for the report: the rule's settings as read from the server. */
  String describe() {
    return String.format(
        Locale.ROOT,
        "every %.0f s; VACUUM above %.0f + %.2f × reltuples dead tuples or %.0f + %.2f × reltuples"
            + " inserts, ANALYZE above %.0f + %.2f × reltuples changes; cost delay %.0f ms, limit"
            + " %.0f",
        setting("autovacuum_naptime"),
        setting("autovacuum_vacuum_threshold"),
        setting("autovacuum_vacuum_scale_factor"),
        setting("autovacuum_vacuum_insert_threshold"),
        setting("autovacuum_vacuum_insert_scale_factor"),
        setting("autovacuum_analyze_threshold"),
        setting("autovacuum_analyze_scale_factor"),
        setting("autovacuum_vacuum_cost_delay"),
        costLimit());
  }

  /** VACUUMs it ran so far. */
  int vacuums() {
    return vacuums.get();
  }

  /** ANALYZEs it ran so far (a VACUUM (ANALYZE) counts in both). */
  int analyzes() {
    return analyzes.get();
  }

  /** Why it stopped early, or null. */
  String failure() {
    return failure;
  }

  private double setting(String name) {
    Double v = settings.get(name);
    if (v == null) {
      throw new IllegalStateException("the server has no setting " + name);
    }
    return v;
  }

  private double costLimit() {
    double limit = setting("autovacuum_vacuum_cost_limit");
    return limit < 0 ? setting("vacuum_cost_limit") : limit;
  }

  private void loop() {
    long napMillis = (long) (setting("autovacuum_naptime") * 1000);
    try (Connection c = service.connect(database);
        Statement st = c.createStatement()) {
      st.execute(
          String.format(
              Locale.ROOT,
              "SET vacuum_cost_delay = '%.0fms'",
              setting("autovacuum_vacuum_cost_delay")));
      st.execute(String.format(Locale.ROOT, "SET vacuum_cost_limit = %.0f", costLimit()));
      running = st;
      while (!closing) {
        Thread.sleep(napMillis);
        if (!closing) {
          check(st);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (SQLException | RuntimeException e) {
      if (!closing) {
        failure = e.toString();
        System.err.println("autovacuum stand-in stopped: " + e);
      }
    }
  }

  /** One round of the autovacuum launcher's decision for the table, and the work it decides. */
  private void check(Statement st) throws SQLException {
    double reltuples;
    long dead;
    long inserted;
    long changed;
    try (ResultSet rs =
        st.executeQuery(
            "SELECT greatest(c.reltuples, 0), s.n_dead_tup, s.n_ins_since_vacuum,"
                + " s.n_mod_since_analyze FROM pg_stat_user_tables s JOIN pg_class c"
                + " ON c.oid = s.relid WHERE s.relname = '"
                + TABLE
                + "'")) {
      if (!rs.next()) {
        return;
      }
      reltuples = rs.getDouble(1);
      dead = rs.getLong(2);
      inserted = rs.getLong(3);
      changed = rs.getLong(4);
    }
    boolean vacuum =
        dead
                > setting("autovacuum_vacuum_threshold")
                    + setting("autovacuum_vacuum_scale_factor") * reltuples
            || (setting("autovacuum_vacuum_insert_threshold") >= 0
                && inserted
                    > setting("autovacuum_vacuum_insert_threshold")
                        + setting("autovacuum_vacuum_insert_scale_factor") * reltuples);
    boolean analyze =
        changed
            > setting("autovacuum_analyze_threshold")
                + setting("autovacuum_analyze_scale_factor") * reltuples;
    if (vacuum) {
      st.execute((analyze ? "VACUUM (ANALYZE) " : "VACUUM ") + TABLE);
      vacuums.incrementAndGet();
    } else if (analyze) {
      st.execute("ANALYZE " + TABLE);
    }
    if (analyze) {
      analyzes.incrementAndGet();
    }
  }

  /** Cancels a VACUUM or ANALYZE in progress and stops the thread. Idempotent. */
  @Override
  public void close() throws InterruptedException {
    closing = true;
    Statement st = running;
    if (st != null) {
      try {
        st.cancel();
      } catch (SQLException e) {
        // the session is gone already
      }
    }
    thread.interrupt();
    thread.join(10_000);
  }
}
