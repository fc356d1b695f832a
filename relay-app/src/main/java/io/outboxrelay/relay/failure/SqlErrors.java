package io.outboxrelay.relay.failure;

import java.net.UnknownHostException;
import java.sql.SQLException;
import java.sql.SQLTransactionRollbackException;
import java.util.Set;

/**
 * What a database error says, from its type, SQLState and vendor error code (never its message):
 * the one place that knows MariaDB/MySQL error numbers and PostgreSQL SQLStates. Stateless and
 * thread-safe.
 */
public final class SqlErrors {

  /** MariaDB/MySQL: the user has no privileges on the database. */
  static final int ER_DBACCESS_DENIED = 1044;

  /** MariaDB/MySQL: access denied for user (wrong password or no such user). */
  static final int ER_ACCESS_DENIED = 1045;

  /** MariaDB/MySQL: unknown database. */
  static final int ER_BAD_DB = 1049;

  /** MariaDB/MySQL: this host is not allowed to connect. */
  static final int ER_HOST_NOT_PRIVILEGED = 1130;

  /** MariaDB/MySQL: command denied to user on table. */
  static final int ER_TABLEACCESS_DENIED = 1142;

  /**
   * MariaDB/MySQL: "Error when executing command SHOW BINLOG EVENTS: Wrong offset or I/O error".
   */
  static final int ER_ERROR_WHEN_EXECUTING_COMMAND = 1220;

  /** MariaDB/MySQL: no such table. */
  static final int ER_NO_SUCH_TABLE = 1146;

  /** MariaDB/MySQL: lock wait timeout exceeded. */
  static final int ER_LOCK_WAIT_TIMEOUT = 1205;

  /** MariaDB/MySQL: deadlock found when trying to get lock. */
  static final int ER_LOCK_DEADLOCK = 1213;

  /** MariaDB/MySQL: access denied; you need (at least one of) the X privilege(s). */
  static final int ER_SPECIFIC_ACCESS_DENIED = 1227;

  /**
   * MariaDB/MySQL: the binlog reader's request failed (the position asked for is gone, or another
   * reader took over its server id).
   */
  static final int ER_MASTER_FATAL_ERROR_READING_BINLOG = 1236;

  /**
   * MariaDB: another binlog reader connected with this reader's server id ("A slave with the same
   * server_uuid/server_id is already connected"). MySQL reports the same with 1236.
   */
  static final int ER_SAME_SERVER_ID_CONNECTED = 4052;

  /** Error codes that need an operator: purged binlog, refused login, missing grants. */
  static final Set<Integer> STOP_CODES =
      Set.of(
          ER_MASTER_FATAL_ERROR_READING_BINLOG,
          ER_ACCESS_DENIED,
          ER_TABLEACCESS_DENIED,
          ER_SPECIFIC_ACCESS_DENIED);

  /** SQLState: serialization failure (a deadlock on MariaDB/MySQL). */
  static final String SERIALIZATION_FAILURE = "40001";

  /** SQLState: check_violation (PostgreSQL: a CHECK constraint refused the row). */
  static final String CHECK_VIOLATION = "23514";

  /** SQLState: MariaDB/MySQL no such table. */
  static final String NO_SUCH_TABLE = "42S02";

  /** SQLState: MariaDB/MySQL no such column. */
  static final String NO_SUCH_COLUMN = "42S22";

  /** SQLState: PostgreSQL undefined_table. */
  static final String UNDEFINED_TABLE = "42P01";

  /** SQLState: PostgreSQL undefined_column. */
  static final String UNDEFINED_COLUMN = "42703";

  /** SQLState: PostgreSQL insufficient_privilege. */
  static final String INSUFFICIENT_PRIVILEGE = "42501";

  /** SQLState: PostgreSQL invalid_catalog_name (no such database). */
  static final String INVALID_CATALOG_NAME = "3D000";

  /** SQLState: PostgreSQL invalid_password. */
  static final String INVALID_PASSWORD = "28P01";

  /** SQLState: invalid authorization (PostgreSQL: no such role, or no pg_hba.conf entry). */
  static final String INVALID_AUTHORIZATION = "28000";

  /** Why an attempt to connect failed, as far as the configuration is concerned. */
  public enum ConnectFailure {
    /** The host name does not resolve. */
    UNKNOWN_HOST,
    /** Wrong password, or no such user (for this host). */
    LOGIN_REFUSED,
    /** The server does not accept the user from this host. */
    HOST_NOT_ALLOWED,
    /** The database does not exist. */
    NO_SUCH_DATABASE,
    /** The user may not use the database. */
    DATABASE_DENIED,
    /** Nothing the configuration can fix: the database may be down or unreachable for now. */
    OTHER
  }

  private SqlErrors() {}

  /**
   * Why a connection attempt failed.
   *
   * @param e the failure of {@code DriverManager.getConnection}
   * @return the reason; {@link ConnectFailure#OTHER} when it is not one of configuration
   */
  public static ConnectFailure connectFailure(SQLException e) {
    if (Causes.find(e, UnknownHostException.class) != null) {
      return ConnectFailure.UNKNOWN_HOST;
    }
    String state = state(e);
    int code = e.getErrorCode();
    if (code == ER_ACCESS_DENIED
        || state.equals(INVALID_PASSWORD)
        || state.equals(INVALID_AUTHORIZATION)) {
      return ConnectFailure.LOGIN_REFUSED;
    }
    if (code == ER_HOST_NOT_PRIVILEGED) {
      return ConnectFailure.HOST_NOT_ALLOWED;
    }
    if (code == ER_BAD_DB || state.equals(INVALID_CATALOG_NAME)) {
      return ConnectFailure.NO_SUCH_DATABASE;
    }
    if (code == ER_DBACCESS_DENIED) {
      return ConnectFailure.DATABASE_DENIED;
    }
    return ConnectFailure.OTHER;
  }

  /**
   * Whether the database rolled the transaction back (a deadlock or a serialization failure:
   * SQLState class 40) and the connection is still good, so the transaction may simply run again.
   *
   * @param e the failure
   * @return true for a transaction rollback
   */
  public static boolean isTransactionRollback(SQLException e) {
    return e instanceof SQLTransactionRollbackException || state(e).startsWith("40");
  }

  /**
   * Whether the statement lost a deadlock (SQLState 40001) and its transaction was rolled back.
   *
   * @param e the failure
   * @return true for a deadlock or serialization failure
   */
  public static boolean isDeadlock(SQLException e) {
    return SERIALIZATION_FAILURE.equals(e.getSQLState());
  }

  /**
   * Whether a lock wait (a row lock, a table lock or a metadata lock) ran out (MariaDB/MySQL error
   * 1205).
   *
   * @param e the failure
   * @return true when the statement gave up waiting for a lock
   */
  public static boolean isLockWaitTimeout(SQLException e) {
    return e.getErrorCode() == ER_LOCK_WAIT_TIMEOUT;
  }

  /**
   * Whether the user lacks a global privilege the statement needs, such as {@code PROCESS}
   * (MariaDB/MySQL error 1227).
   *
   * @param e the failure
   * @return true when a global grant is missing
   */
  public static boolean isPrivilegeDenied(SQLException e) {
    return e.getErrorCode() == ER_SPECIFIC_ACCESS_DENIED;
  }

  /**
   * Whether either database said that a table does not exist: MariaDB/MySQL's SQLState 42S02 or
   * PostgreSQL's 42P01.
   *
   * @param e the failure
   * @return true for a missing table
   */
  public static boolean isMissingTable(SQLException e) {
    return isNoSuchTable(e) || isUndefinedTable(e);
  }

  /**
   * Whether either database refused to let the user read a table: MariaDB/MySQL's errors 1142 and
   * 1044, or PostgreSQL's SQLState 42501.
   *
   * @param e the failure
   * @return true for a missing grant on a table
   */
  public static boolean isTableDenied(SQLException e) {
    return isTableOrDatabaseDenied(e) || INSUFFICIENT_PRIVILEGE.equals(e.getSQLState());
  }

  /**
   * Whether MariaDB/MySQL said that a table does not exist (SQLState 42S02; error 1146 carries it).
   *
   * @param e the failure
   * @return true for a missing table
   */
  public static boolean isNoSuchTable(SQLException e) {
    return NO_SUCH_TABLE.equals(e.getSQLState());
  }

  /**
   * Whether PostgreSQL said that a table does not exist (SQLState 42P01).
   *
   * @param e the failure
   * @return true for a missing table
   */
  public static boolean isUndefinedTable(SQLException e) {
    return UNDEFINED_TABLE.equals(e.getSQLState());
  }

  /**
   * Whether MariaDB/MySQL said that a table does not exist, by its error code.
   *
   * @param e the failure
   * @return true for error 1146
   */
  public static boolean isNoSuchTableCode(SQLException e) {
    return e.getErrorCode() == ER_NO_SUCH_TABLE;
  }

  /**
   * Whether MariaDB/MySQL could not read the binlog where a command asked ({@code SHOW BINLOG
   * EVENTS} at an offset where no event starts).
   *
   * @param e the failure
   * @return true for error 1220
   */
  public static boolean isWrongBinlogOffset(SQLException e) {
    return e.getErrorCode() == ER_ERROR_WHEN_EXECUTING_COMMAND;
  }

  /**
   * Whether the user lacks a privilege on a table or database (MariaDB/MySQL errors 1142, 1044).
   *
   * @param e the failure
   * @return true when a grant is missing
   */
  public static boolean isTableOrDatabaseDenied(SQLException e) {
    return e.getErrorCode() == ER_TABLEACCESS_DENIED || e.getErrorCode() == ER_DBACCESS_DENIED;
  }

  /**
   * Whether an insert met an existing row of the same unique key: SQLState 23505 (PostgreSQL), or
   * the driver's integrity constraint violation (MariaDB/MySQL error 1062).
   *
   * @param e the failure
   * @return true for a duplicate key
   */
  public static boolean isDuplicateKey(SQLException e) {
    return e instanceof java.sql.SQLIntegrityConstraintViolationException
        || "23505".equals(e.getSQLState());
  }

  /**
   * Whether a row broke a CHECK constraint (SQLState 23514).
   *
   * @param e the failure
   * @return true for a check violation
   */
  public static boolean isCheckViolation(SQLException e) {
    return CHECK_VIOLATION.equals(e.getSQLState());
  }

  /**
   * Whether the table or the user's rights are not what a statement needs: a missing table or
   * column, or a missing grant, on either database.
   *
   * @param e the failure
   * @return true for a setup problem an operator must fix
   */
  public static boolean isSetupProblem(SQLException e) {
    String state = state(e);
    return state.equals(NO_SUCH_TABLE)
        || state.equals(NO_SUCH_COLUMN)
        || state.equals(UNDEFINED_TABLE)
        || state.equals(UNDEFINED_COLUMN)
        || state.equals(INSUFFICIENT_PRIVILEGE)
        || e.getErrorCode() == ER_TABLEACCESS_DENIED
        || e.getErrorCode() == ER_SPECIFIC_ACCESS_DENIED;
  }

  /** The disposition the error's own type, code or state gives, or null when they say nothing. */
  static Disposition classify(SQLException sql) {
    if (sql instanceof java.sql.SQLTransientException
        || sql instanceof java.sql.SQLRecoverableException) {
      return Disposition.RETRY;
    }
    int code = sql.getErrorCode();
    if (code == ER_LOCK_WAIT_TIMEOUT || code == ER_LOCK_DEADLOCK) {
      return Disposition.RETRY;
    }
    if (STOP_CODES.contains(code)) {
      return Disposition.STOP;
    }
    String state = state(sql);
    if (state.startsWith("08")
        || state.startsWith("40")
        || state.equals("57P01")
        || state.equals("53300")
        || state.equals("55P03")) {
      return Disposition.RETRY; // connection, rollback (deadlock/serialization), shutdown
    }
    if (state.equals(INVALID_AUTHORIZATION)
        || state.equals(INVALID_PASSWORD)
        || state.equals(INSUFFICIENT_PRIVILEGE)) {
      return Disposition.STOP; // authentication or privileges
    }
    return null;
  }

  private static String state(SQLException e) {
    return e.getSQLState() == null ? "" : e.getSQLState();
  }
}
