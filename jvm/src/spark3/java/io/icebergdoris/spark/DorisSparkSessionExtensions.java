package io.icebergdoris.spark;

import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.catalyst.parser.ParserInterface;
import scala.runtime.AbstractFunction1;
import scala.runtime.AbstractFunction2;
import scala.runtime.BoxedUnit;

/**
 * Spark session extension that makes {@code CALL doris.<procedure>(...)} parse.
 *
 * <p>List it after Iceberg's extensions in {@code spark.sql.extensions}: Spark chains injected
 * parsers in that order, so ours wraps Iceberg's and only takes the statements Iceberg refuses.
 */
public final class DorisSparkSessionExtensions extends AbstractFunction1<SparkSessionExtensions, BoxedUnit> {

  @Override
  public BoxedUnit apply(SparkSessionExtensions extensions) {
    extensions.injectParser(
        new AbstractFunction2<SparkSession, ParserInterface, ParserInterface>() {
          @Override
          public ParserInterface apply(SparkSession session, ParserInterface delegate) {
            return new DorisCallParser(delegate);
          }
        });
    return BoxedUnit.UNIT;
  }
}
