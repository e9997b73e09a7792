package io.icebergdoris.spark;

import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.catalyst.parser.ParserInterface;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.rules.Rule;
import scala.runtime.AbstractFunction1;
import scala.runtime.AbstractFunction2;
import scala.runtime.BoxedUnit;

/**
 * Spark 3.5's session extension: makes {@code CALL doris.<procedure>(...)} and Doris's {@code
 * UPDATE ... FROM} parse, and runs Spark's
 * own write statements on Doris tables as the Doris operation ({@link DorisStatementRule}).
 *
 * <p>List it after Iceberg's extensions in {@code spark.sql.extensions}: Spark chains injected
 * parsers in that order, so ours wraps Iceberg's and only takes the statements Iceberg refuses.
 * Spark 3.5 has no hint rules to inject, and rewrites DELETE / UPDATE / MERGE into row-level
 * plans in the same analyzer pass that resolves them, so those are taken as they are parsed
 * ({@link DorisCallParser}); INSERT and writeTo with the resolution rules, as on Spark 4.
 */
public final class DorisSparkSessionExtensions extends AbstractFunction1<SparkSessionExtensions, BoxedUnit> {

  @Override
  public BoxedUnit apply(SparkSessionExtensions extensions) {
    extensions.injectParser(
        new AbstractFunction2<SparkSession, ParserInterface, ParserInterface>() {
          @Override
          public ParserInterface apply(SparkSession session, ParserInterface delegate) {
            return new DorisCallParser(session, delegate);
          }
        });
    extensions.injectResolutionRule(
        new AbstractFunction1<SparkSession, Rule<LogicalPlan>>() {
          @Override
          public Rule<LogicalPlan> apply(SparkSession session) {
            return new DorisStatementRule(session, false);
          }
        });
    return BoxedUnit.UNIT;
  }
}
