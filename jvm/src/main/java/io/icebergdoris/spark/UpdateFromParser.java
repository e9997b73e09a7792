package io.icebergdoris.spark;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.parser.ParseException;
import org.apache.spark.sql.catalyst.parser.ParserInterface;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.UpdateTable;
import org.apache.spark.sql.execution.command.ExplainCommand;

/**
 * Doris's {@code [WITH ...] UPDATE t SET ... FROM <relations> [WHERE ...]}, which Spark's grammar
 * lacks, taken before Spark's parser would fail on it: {@link UpdateFromText} splits it into pieces
 * Spark's own parser reads, and {@link DorisStatementRule#updateFrom} makes the Doris statement of
 * them. So is {@code WITH ... UPDATE} on a Doris table, which Spark 3.5 would otherwise run as a
 * plain Iceberg UPDATE (the WITH hides it from the rule). Every other statement goes to the wrapped
 * parser untouched.
 *
 * <p>Shared by every Spark line: Spark 3.5's {@code DorisCallParser} calls {@link #parse}; on Spark 4
 * {@link #wrap} is the injected parser. Its methods differ between Spark lines (4.1 adds
 * {@code parsePlanWithParameters}), so the wrapper is a proxy that forwards every call but the
 * statement parses, whatever the line's interface declares.
 */
public final class UpdateFromParser {

  private UpdateFromParser() {}

  /**
   * The plan of {@code sql} when it is an {@code UPDATE ... FROM}, or a {@code WITH ... UPDATE} on a
   * Doris table; null for any other statement.
   */
  public static LogicalPlan parse(SparkSession session, ParserInterface delegate, String sql) throws ParseException {
    UpdateFromText text = UpdateFromText.of(sql);
    if (text == null) {
      return null;
    }
    LogicalPlan update;
    LogicalPlan relations;
    LogicalPlan cte;
    LogicalPlan explain;
    try {
      update = delegate.parsePlan(text.update());
      relations = parseOrNull(delegate, text.relations());
      cte = parseOrNull(delegate, text.cte());
      explain = parseOrNull(delegate, text.explain());
    } catch (ParseException e) {
      // The pieces keep the statement's offsets; show the statement instead of a piece.
      throw e.withCommand(sql);
    }
    if (!(update instanceof UpdateTable updateTable)) {
      return null; // not an UPDATE after all: Spark's parser reports what it is
    }
    LogicalPlan statement = new DorisStatementRule(session, true).updateFrom(updateTable, relations, cte);
    if (statement == null) {
      return null;
    }
    return explain instanceof ExplainCommand command ? new ExplainCommand(statement, command.mode()) : statement;
  }

  private static LogicalPlan parseOrNull(ParserInterface delegate, String text) throws ParseException {
    return text == null ? null : delegate.parsePlan(text);
  }

  /** {@code delegate}, taking {@code UPDATE ... FROM} first (the parser a Spark 4 session injects). */
  public static ParserInterface wrap(SparkSession session, ParserInterface delegate) {
    return (ParserInterface) Proxy.newProxyInstance(
        ParserInterface.class.getClassLoader(), new Class<?>[] {ParserInterface.class}, new Forwarding(session, delegate));
  }

  /**
   * What the wrapper does with each call; its class name is how a session's parser is known to be
   * ours (the proxy's own class has a generated name).
   */
  private static final class Forwarding implements InvocationHandler {

    private final SparkSession session;
    private final ParserInterface delegate;

    Forwarding(SparkSession session, ParserInterface delegate) {
      this.session = session;
      this.delegate = delegate;
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] arguments) throws Throwable {
      if (isPlanParse(method) && arguments[0] instanceof String sql) {
        LogicalPlan plan = parse(session, delegate, sql);
        if (plan != null) {
          return plan;
        }
      }
      if (method.getDeclaringClass() == Object.class) {
        return objectMethod(proxy, method, arguments, delegate);
      }
      try {
        return method.invoke(delegate, arguments);
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
    }
  }

  /** {@code parsePlan(sql)}, or Spark 4.1's {@code parsePlanWithParameters(sql, parameters)}. */
  private static boolean isPlanParse(Method method) {
    return (method.getName().equals("parsePlan") || method.getName().equals("parsePlanWithParameters"))
        && method.getParameterCount() >= 1;
  }

  private static Object objectMethod(Object proxy, Method method, Object[] arguments, ParserInterface delegate) {
    return switch (method.getName()) {
      case "equals" -> proxy == arguments[0];
      case "hashCode" -> System.identityHashCode(proxy);
      default -> "UpdateFromParser(" + delegate + ")";
    };
  }
}
