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
 * Spark 4's session extension: Spark's own write statements on Doris tables run as the Doris
 * operation ({@link DorisStatementRule}), and Doris's {@code UPDATE ... FROM}, which Spark's grammar
 * lacks, parses ({@link UpdateFromParser}). {@code CALL doris.*} needs nothing here on Spark 4 (it
 * is Spark SQL, answered by {@link DorisProcedureCatalog}). List it after Iceberg's extensions:
 * Spark chains injected parsers in that order, so ours wraps Iceberg's.
 */
public final class DorisSparkSessionExtensions extends AbstractFunction1<SparkSessionExtensions, BoxedUnit> {

  @Override
  public BoxedUnit apply(SparkSessionExtensions extensions) {
    extensions.injectParser(
        new AbstractFunction2<SparkSession, ParserInterface, ParserInterface>() {
          @Override
          public ParserInterface apply(SparkSession session, ParserInterface delegate) {
            return UpdateFromParser.wrap(session, delegate);
          }
        });
    extensions.injectResolutionRule(
        new AbstractFunction1<SparkSession, Rule<LogicalPlan>>() {
          @Override
          public Rule<LogicalPlan> apply(SparkSession session) {
            return new DorisStatementRule(session, false);
          }
        });
    extensions.injectHintResolutionRule(
        new AbstractFunction1<SparkSession, Rule<LogicalPlan>>() {
          @Override
          public Rule<LogicalPlan> apply(SparkSession session) {
            return new DorisStatementRule(session, true);
          }
        });
    return BoxedUnit.UNIT;
  }
}
