package io.icebergdoris.spark;

import java.lang.reflect.Method;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.expressions.Add;
import org.apache.spark.sql.catalyst.expressions.EvalMode$;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Multiply;
import org.apache.spark.sql.catalyst.expressions.Subtract;
import org.apache.spark.sql.catalyst.expressions.objects.AssertNotNull;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.types.IntegralType;
import scala.Enumeration;
import scala.runtime.AbstractPartialFunction;

/**
 * A load's source as Doris reads it, where Spark's plan would wrap a value or fail the statement
 * before the load's own checks see the row:
 *
 * <ul>
 *   <li>Integer {@code +}, {@code -} and {@code *} fail on overflow instead of wrapping (Spark's
 *       non-ANSI arithmetic, the session default iceberg-doris sets for its casts): Doris computes
 *       them in the next wider type ({@code BIGINT + BIGINT} is {@code LARGEINT}) and filters a
 *       result out of the column's range; a wrapped value would be stored as if it were right.
 *   <li>The {@code AssertNotNull} Spark's {@code INSERT} puts on a NOT NULL column is taken off:
 *       the load's checks make that row a filtered row in Doris's words (strict mode fails the
 *       statement, strict mode off loads the other rows).
 * </ul>
 *
 * <p>Spark 3.5 and 4.0 keep an arithmetic's evaluation mode as an {@code EvalMode} value, Spark 4.1
 * in a {@code NumericEvalContext}: both are read and replaced through the node's constructor
 * arguments ({@code makeCopy}), so one source serves every line.
 */
public final class LoadSources {

  private LoadSources() {}

  /** {@code frame} with its plan changed as the class says; {@code frame} itself when nothing changes. */
  public static Dataset<Row> asDorisReads(Dataset<Row> frame) {
    LogicalPlan plan = frame.queryExecution().analyzed();
    LogicalPlan changed = (LogicalPlan) plan.transformAllExpressions(new AbstractPartialFunction<Expression, Expression>() {
      @Override
      public boolean isDefinedAt(Expression expression) {
        return expression instanceof AssertNotNull || wrapsOnOverflow(expression);
      }

      @Override
      public Expression apply(Expression expression) {
        if (expression instanceof AssertNotNull assertion) {
          return assertion.child();
        }
        return failingOnOverflow(expression);
      }
    });
    return changed == plan ? frame : SparkCompat.ofRows(frame.sparkSession(), changed);
  }

  static boolean wrapsOnOverflow(Expression expression) {
    if (!(expression instanceof Add || expression instanceof Subtract || expression instanceof Multiply)) {
      return false;
    }
    return expression.resolved() && expression.dataType() instanceof IntegralType && !ansi(evalMode(expression));
  }

  static Expression failingOnOverflow(Expression expression) {
    return withEvalMode(expression, EvalMode$.MODULE$.ANSI());
  }

  /** An arithmetic node like {@code expression}, evaluated in {@code mode} (EvalMode.LEGACY, ANSI, TRY). */
  static Expression withEvalMode(Expression expression, Enumeration.Value mode) {
    Object[] arguments = constructorArguments(expression);
    Object current = arguments[arguments.length - 1];
    arguments[arguments.length - 1] = current instanceof Enumeration.Value ? mode : contextWith(current, mode);
    return (Expression) expression.makeCopy(arguments);
  }

  private static Object[] constructorArguments(Expression expression) {
    Object[] arguments = new Object[expression.productArity()];
    for (int i = 0; i < arguments.length; i++) {
      arguments[i] = expression.productElement(i);
    }
    return arguments;
  }

  private static Enumeration.Value evalMode(Expression expression) {
    Object[] arguments = constructorArguments(expression);
    Object mode = arguments[arguments.length - 1];
    if (mode instanceof Enumeration.Value value) {
      return value;
    }
    return (Enumeration.Value) invoke(mode, "evalMode");
  }

  private static boolean ansi(Enumeration.Value mode) {
    return mode == EvalMode$.MODULE$.ANSI();
  }

  /** Spark 4.1's NumericEvalContext(mode, the context's own allowDecimalPrecisionLoss). */
  private static Object contextWith(Object context, Enumeration.Value mode) {
    try {
      Class<?> companion = Class.forName(context.getClass().getName() + "$");
      Object module = companion.getField("MODULE$").get(null);
      Method apply = companion.getMethod("apply", Enumeration.Value.class, boolean.class);
      return apply.invoke(module, mode, invoke(context, "allowDecimalPrecisionLoss"));
    } catch (ReflectiveOperationException unexpected) {
      throw new IllegalStateException("cannot set the evaluation mode of " + context.getClass().getName(), unexpected);
    }
  }

  private static Object invoke(Object target, String method) {
    try {
      return target.getClass().getMethod(method).invoke(target);
    } catch (ReflectiveOperationException unexpected) {
      throw new IllegalStateException("cannot read " + method + " of " + target.getClass().getName(), unexpected);
    }
  }
}
