package io.outboxrelay.relay.source.cdc;

import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Decides whether the SQL of a statement-based binlog event changes rows of one table: {@code
 * INSERT} and {@code REPLACE} by their target, {@code UPDATE} and {@code DELETE} by any table they
 * name before {@code SET} or {@code WHERE} (a multi-table statement naming the table may change it,
 * so it counts). Names compare without regard to case; an unqualified name belongs to the
 * statement's default database.
 *
 * <p>Only the head of a statement is read: string literals, and so payloads, are skipped and never
 * returned. Comments are skipped; the body of an executable comment ({@code /*!...}) is read as
 * code. Stateless and thread-safe.
 */
final class StatementTargets {

  private static final Set<String> INSERT_MODIFIERS =
      Set.of("LOW_PRIORITY", "DELAYED", "HIGH_PRIORITY", "IGNORE", "INTO");
  private static final Set<String> UPDATE_MODIFIERS = Set.of("LOW_PRIORITY", "IGNORE");
  private static final Set<String> DELETE_END = Set.of("WHERE", "ORDER", "LIMIT", "RETURNING");
  private static final Set<String> DML = Set.of("INSERT", "REPLACE", "UPDATE", "DELETE");

  private StatementTargets() {}

  /**
   * The kind of change a statement makes to a table.
   *
   * @param sql the statement
   * @param defaultDatabase the statement's default database, or {@code null}
   * @param database the table's database
   * @param table the table
   * @return {@code INSERT}, {@code REPLACE}, {@code UPDATE} or {@code DELETE} when the statement
   *     changes (or may change) rows of the table; empty otherwise
   */
  static Optional<String> changing(
      String sql, String defaultDatabase, String database, String table) {
    Tokens tokens = new Tokens(sql);
    Token first = skipPrefixes(tokens);
    if (first == null || !DML.contains(first.upper())) {
      return Optional.empty();
    }
    String kind = first.upper();
    Names names = new Names(defaultDatabase, database, table);
    boolean changes =
        switch (kind) {
          case "INSERT", "REPLACE" -> insertTarget(tokens, names);
          case "UPDATE" -> namedBefore(tokens, names, Set.of("SET"), UPDATE_MODIFIERS);
          default -> namedBefore(tokens, names, DELETE_END, Set.of());
        };
    return changes ? Optional.of(kind) : Optional.empty();
  }

  /** Skips MariaDB's {@code SET STATEMENT ... FOR} and a leading {@code WITH} clause. */
  private static Token skipPrefixes(Tokens tokens) {
    Token t = tokens.next();
    if (t != null && t.isWord("SET")) {
      Token second = tokens.next();
      if (second == null || !second.isWord("STATEMENT")) {
        return null; // a SET of a variable
      }
      t = skipTo(tokens, Set.of("FOR"));
      t = t == null ? null : tokens.next();
    }
    if (t != null && t.isWord("WITH")) {
      t = skipTo(tokens, DML);
    }
    return t;
  }

  /** Advances to the first word of {@code words} outside parentheses; returns it, or null. */
  private static Token skipTo(Tokens tokens, Set<String> words) {
    int depth = 0;
    for (Token t = tokens.next(); t != null; t = tokens.next()) {
      if (t.isSymbol('(')) {
        depth++;
      } else if (t.isSymbol(')')) {
        depth--;
      } else if (depth == 0 && t.kind() == Kind.WORD && words.contains(t.upper())) {
        return t;
      }
    }
    return null;
  }

  private static boolean insertTarget(Tokens tokens, Names names) {
    Token t = tokens.next();
    while (t != null && t.kind() == Kind.WORD && INSERT_MODIFIERS.contains(t.upper())) {
      t = tokens.next();
    }
    if (t == null || !t.isName()) {
      return false;
    }
    Token dot = tokens.next();
    if (dot != null && dot.isSymbol('.')) {
      Token name = tokens.next();
      return name != null && name.isName() && names.qualified(t.text(), name.text());
    }
    return names.unqualified(t.text());
  }

  /** Whether the table is named before the first of {@code end} outside parentheses. */
  private static boolean namedBefore(
      Tokens tokens, Names names, Set<String> end, Set<String> modifiers) {
    Token previous = null;
    Token t = tokens.next();
    while (t != null && t.kind() == Kind.WORD && modifiers.contains(t.upper())) {
      t = tokens.next();
    }
    int depth = 0;
    for (; t != null; previous = t, t = tokens.next()) {
      if (t.isSymbol('(')) {
        depth++;
      } else if (t.isSymbol(')')) {
        depth--;
      } else if (depth == 0 && t.kind() == Kind.WORD && end.contains(t.upper())) {
        return false;
      } else if (t.isName()) {
        boolean afterDot = previous != null && previous.isSymbol('.');
        Token next = tokens.peek();
        if (next != null && next.isSymbol('.')) {
          // a qualifier: "db.table" is checked when its second part comes
          continue;
        }
        if (afterDot
            ? names.qualified(tokens.beforeDot(), t.text())
            : names.unqualified(t.text())) {
          return true;
        }
      }
    }
    return false;
  }

  /** The table being looked for. */
  private record Names(String defaultDatabase, String database, String table) {
    boolean unqualified(String name) {
      return name.equalsIgnoreCase(table)
          && defaultDatabase != null
          && defaultDatabase.equalsIgnoreCase(database);
    }

    boolean qualified(String qualifier, String name) {
      return qualifier != null
          && qualifier.equalsIgnoreCase(database)
          && name.equalsIgnoreCase(table);
    }
  }

  private enum Kind {
    /** A keyword or unquoted identifier. */
    WORD,
    /** A back-quoted identifier. */
    QUOTED_NAME,
    /** A double-quoted string, an identifier under ANSI_QUOTES. */
    DOUBLE_QUOTED,
    /** A single-quoted string. */
    STRING,
    /** Any other character. */
    SYMBOL
  }

  private record Token(Kind kind, String text) {
    String upper() {
      return text.toUpperCase(Locale.ROOT);
    }

    boolean isWord(String word) {
      return kind == Kind.WORD && text.equalsIgnoreCase(word);
    }

    boolean isSymbol(char c) {
      return kind == Kind.SYMBOL && text.charAt(0) == c;
    }

    boolean isName() {
      return kind == Kind.WORD || kind == Kind.QUOTED_NAME || kind == Kind.DOUBLE_QUOTED;
    }
  }

  /** A lazy tokenizer: the tail of a statement (its values) is usually never read. */
  private static final class Tokens {
    private final String sql;
    private int pos;
    private boolean inExecutableComment;
    private Token peeked;
    private Token last;
    private Token beforeLast;
    private Token beforeBeforeLast;

    Tokens(String sql) {
      this.sql = sql == null ? "" : sql;
    }

    Token peek() {
      if (peeked == null) {
        peeked = read();
      }
      return peeked;
    }

    Token next() {
      Token t = peek();
      peeked = null;
      beforeBeforeLast = beforeLast;
      beforeLast = last;
      last = t;
      return t;
    }

    /** The name before the dot before the current token, as in {@code db.table}. */
    String beforeDot() {
      return beforeBeforeLast != null && beforeBeforeLast.isName() ? beforeBeforeLast.text() : null;
    }

    private Token read() {
      while (pos < sql.length()) {
        char c = sql.charAt(pos);
        if (Character.isWhitespace(c)) {
          pos++;
        } else if (c == '#' || (c == '-' && startsWith("--") && dashCommentAt(pos + 2))) {
          skipLine();
        } else if (startsWith("/*!") || startsWith("/*M!")) {
          pos += sql.charAt(pos + 2) == 'M' ? 4 : 3;
          while (pos < sql.length() && Character.isDigit(sql.charAt(pos))) {
            pos++; // the server version the comment is for
          }
          inExecutableComment = true;
        } else if (startsWith("/*")) {
          int end = sql.indexOf("*/", pos + 2);
          pos = end < 0 ? sql.length() : end + 2;
        } else if (inExecutableComment && startsWith("*/")) {
          inExecutableComment = false;
          pos += 2;
        } else if (c == '\'' || c == '"' || c == '`') {
          return quoted(c);
        } else if (isWordChar(c)) {
          int start = pos;
          while (pos < sql.length() && isWordChar(sql.charAt(pos))) {
            pos++;
          }
          return new Token(Kind.WORD, sql.substring(start, pos));
        } else {
          pos++;
          return new Token(Kind.SYMBOL, String.valueOf(c));
        }
      }
      return null;
    }

    private Token quoted(char quote) {
      StringBuilder text = new StringBuilder();
      pos++;
      while (pos < sql.length()) {
        char c = sql.charAt(pos++);
        if (c == quote) {
          if (pos < sql.length() && sql.charAt(pos) == quote) {
            text.append(quote);
            pos++;
            continue;
          }
          break;
        }
        if (c == '\\' && quote != '`' && pos < sql.length()) {
          c = sql.charAt(pos++);
        }
        text.append(c);
      }
      Kind kind =
          switch (quote) {
            case '`' -> Kind.QUOTED_NAME;
            case '"' -> Kind.DOUBLE_QUOTED;
            default -> Kind.STRING;
          };
      // A string's text is never needed: drop it, so that no value is kept by accident.
      return new Token(kind, kind == Kind.STRING ? "" : text.toString());
    }

    private boolean startsWith(String s) {
      return sql.startsWith(s, pos);
    }

    private boolean dashCommentAt(int i) {
      return i >= sql.length() || Character.isWhitespace(sql.charAt(i));
    }

    private void skipLine() {
      int end = sql.indexOf('\n', pos);
      pos = end < 0 ? sql.length() : end + 1;
    }

    private static boolean isWordChar(char c) {
      return Character.isLetterOrDigit(c) || c == '_' || c == '$' || c >= 0x80;
    }
  }
}
