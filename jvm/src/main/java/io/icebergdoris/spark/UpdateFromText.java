package io.icebergdoris.spark;

import java.util.Locale;

/**
 * Doris's {@code [EXPLAIN] [WITH ...] UPDATE <table> [[AS] alias] SET <assignments> [FROM <relations>]
 * [WHERE <condition>]} with a FROM clause or a WITH clause, split at its top-level keywords into
 * texts Spark's own grammar parses (Spark has no {@code UPDATE ... FROM}, and on Spark 3.5 a WITH
 * clause would hide the UPDATE from the rule that runs it): {@link #update} is Spark's {@code UPDATE
 * <table> SET ... [WHERE ...]}, {@link #relations} {@code SELECT * FROM <relations>} (null without
 * FROM), {@link #cte} the WITH clause over {@code SELECT 1} (null without one), {@link #explain} the
 * {@code EXPLAIN [mode]} head over {@code SELECT 1} (null without one).
 *
 * <p>Each text is the statement itself with the parts it does not hold blanked (newlines kept), so a
 * parse error points at the user's line and column. Keywords count only outside quotes, backquotes,
 * comments and parentheses; any other statement gives null, and goes to Spark's parser untouched.
 */
record UpdateFromText(String update, String relations, String cte, String explain) {

  private static final String SELECT_FROM = "SELECT * FROM";
  private static final String SELECT_ONE = " SELECT 1";

  /** The statement's pieces, or null when {@code sql} is not an UPDATE with a FROM or a WITH clause. */
  static UpdateFromText of(String sql) {
    Scan scan = new Scan(sql);
    int first = scan.nextWord(0);
    if (first < 0) {
      return null;
    }
    int explainEnd = -1;
    int start = first;
    if (scan.wordAt(first, "EXPLAIN")) {
      explainEnd = scan.wordEnd(first);
      int next = scan.nextWord(explainEnd);
      if (next >= 0 && isExplainMode(scan.word(next))) {
        explainEnd = scan.wordEnd(next);
        next = scan.nextWord(explainEnd);
      }
      if (next < 0) {
        return null;
      }
      start = next;
    }
    int update = start;
    boolean withClause = scan.wordAt(start, "WITH");
    if (withClause) {
      update = scan.firstStatementWord(scan.wordEnd(start));
      if (update < 0 || !scan.wordAt(update, "UPDATE")) {
        return null;
      }
    } else if (!scan.wordAt(start, "UPDATE")) {
      return null;
    }
    int set = scan.topLevelWord(scan.wordEnd(update), "SET");
    if (set < 0) {
      return null;
    }
    int from = scan.topLevelWord(scan.wordEnd(set), "FROM");
    if (from < 0 && !withClause) {
      return null; // a plain UPDATE: Spark's own statement
    }
    int end = scan.end();
    int where = scan.topLevelWord(scan.wordEnd(from < 0 ? set : from), "WHERE");
    int whereOrEnd = where < 0 ? end : where;
    int fromOrWhere = from < 0 ? whereOrEnd : from;

    StringBuilder updateText = new StringBuilder(blank(sql, 0, update));
    updateText.append(sql, update, fromOrWhere).append(blank(sql, fromOrWhere, whereOrEnd)).append(sql, whereOrEnd, end);

    String relationsText = null;
    if (from >= 0) {
      relationsText = blank(sql, 0, update) + selectFrom(blank(sql, update, scan.wordEnd(from)))
          + sql.substring(scan.wordEnd(from), whereOrEnd) + blank(sql, whereOrEnd, end);
    }
    String cteText = withClause ? blank(sql, 0, start) + sql.substring(start, update) + SELECT_ONE : null;
    String explainText = explainEnd < 0 ? null : sql.substring(0, explainEnd) + SELECT_ONE;
    return new UpdateFromText(updateText.toString(), relationsText, cteText, explainText);
  }

  /**
   * {@code SELECT * FROM} written over the blanked {@code UPDATE ... FROM} head, on one of its lines
   * long enough to hold it, so the relations after it keep their line and column.
   */
  private static String selectFrom(String head) {
    int lineStart = 0;
    while (lineStart <= head.length()) {
      int newline = head.indexOf('\n', lineStart);
      int lineEnd = newline < 0 ? head.length() : newline;
      if (lineEnd - lineStart >= SELECT_FROM.length()) {
        return head.substring(0, lineStart) + SELECT_FROM + head.substring(lineStart + SELECT_FROM.length());
      }
      lineStart = lineEnd + 1;
    }
    return SELECT_FROM + " " + head.replace("\n", " ").substring(0, Math.max(0, head.length() - SELECT_FROM.length() - 1));
  }

  private static boolean isExplainMode(String word) {
    return switch (word.toUpperCase(Locale.ROOT)) {
      case "LOGICAL", "FORMATTED", "EXTENDED", "CODEGEN", "COST" -> true;
      default -> false;
    };
  }

  /** {@code sql[from, to)} as spaces, its newlines kept. */
  private static String blank(String sql, int from, int to) {
    return sql.substring(from, to).replaceAll("[^\\n]", " ");
  }

  /** Word positions in one statement's text, outside quotes, backquotes, comments and parentheses. */
  private static final class Scan {

    private final String sql;
    private final int end;

    Scan(String sql) {
      this.sql = sql;
      int last = sql.length();
      // A trailing semicolon (and blanks) ends the statement.
      while (last > 0 && (Character.isWhitespace(sql.charAt(last - 1)) || sql.charAt(last - 1) == ';')) {
        last--;
      }
      this.end = last;
    }

    int end() {
      return end;
    }

    /** The start of the first word at or after {@code from}, skipping only blanks and comments; or -1. */
    int nextWord(int from) {
      int i = skipBlanks(from);
      return i < end && isWordChar(sql.charAt(i)) ? i : -1;
    }

    /** The first top-level word at or after {@code from} that begins the statement under a WITH clause. */
    int firstStatementWord(int from) {
      for (int i = next(from); i >= 0; i = next(wordEnd(i))) {
        String word = word(i).toUpperCase(Locale.ROOT);
        if (word.equals("UPDATE") || word.equals("SELECT") || word.equals("INSERT") || word.equals("DELETE")
            || word.equals("MERGE") || word.equals("FROM") || word.equals("VALUES") || word.equals("TABLE")) {
          return i;
        }
      }
      return -1;
    }

    /** The first top-level {@code keyword} at or after {@code from}, or -1. */
    int topLevelWord(int from, String keyword) {
      for (int i = next(from); i >= 0; i = next(wordEnd(i))) {
        if (wordAt(i, keyword)) {
          return i;
        }
      }
      return -1;
    }

    boolean wordAt(int at, String keyword) {
      return word(at).equalsIgnoreCase(keyword);
    }

    String word(int at) {
      return sql.substring(at, wordEnd(at));
    }

    int wordEnd(int at) {
      int i = at;
      while (i < end && isWordChar(sql.charAt(i))) {
        i++;
      }
      return i;
    }

    /**
     * The start of the next top-level word at or after {@code from} (outside parentheses opened
     * after it); a word after a dot is part of a name, not a keyword; -1 at the end.
     */
    private int next(int from) {
      int depth = 0;
      int i = from;
      while (i < end) {
        char c = sql.charAt(i);
        if (c == '\'' || c == '"' || c == '`') {
          i = closing(i, c);
        } else if (startsComment(i)) {
          i = afterComment(i);
        } else if (c == '(') {
          depth++;
          i++;
        } else if (c == ')') {
          depth--;
          i++;
        } else if (isWordChar(c)) {
          if (depth == 0 && !afterDot(i)) {
            return i;
          }
          i = wordEnd(i);
        } else {
          i++;
        }
      }
      return -1;
    }

    private boolean afterDot(int at) {
      int i = at - 1;
      while (i >= 0 && Character.isWhitespace(sql.charAt(i))) {
        i--;
      }
      return i >= 0 && sql.charAt(i) == '.';
    }

    private int skipBlanks(int from) {
      int i = from;
      while (i < end) {
        if (Character.isWhitespace(sql.charAt(i))) {
          i++;
        } else if (startsComment(i)) {
          i = afterComment(i);
        } else {
          break;
        }
      }
      return i;
    }

    private boolean startsComment(int i) {
      return sql.startsWith("--", i) || sql.startsWith("/*", i);
    }

    /** After a line comment, or a bracketed one (which Spark lets nest). */
    private int afterComment(int at) {
      if (sql.startsWith("--", at)) {
        int newline = sql.indexOf('\n', at);
        return newline < 0 ? sql.length() : newline + 1;
      }
      int depth = 0;
      int i = at;
      while (i < sql.length()) {
        if (sql.startsWith("/*", i)) {
          depth++;
          i += 2;
        } else if (sql.startsWith("*/", i)) {
          depth--;
          i += 2;
          if (depth == 0) {
            return i;
          }
        } else {
          i++;
        }
      }
      return i;
    }

    /** After the quote or backquote that closes the one at {@code at} (a backslash escapes in strings, a doubled backquote in names). */
    private int closing(int at, char quote) {
      int i = at + 1;
      while (i < sql.length()) {
        char c = sql.charAt(i);
        if (c == '\\' && quote != '`') {
          i += 2;
        } else if (c == quote) {
          if (quote == '`' && i + 1 < sql.length() && sql.charAt(i + 1) == '`') {
            i += 2;
          } else {
            return i + 1;
          }
        } else {
          i++;
        }
      }
      return i;
    }

    private static boolean isWordChar(char c) {
      return Character.isLetterOrDigit(c) || c == '_';
    }
  }
}
