package io.icebergdoris.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.spark.sql.catalyst.expressions.Add;
import org.apache.spark.sql.catalyst.expressions.EvalMode$;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.Multiply;
import org.apache.spark.sql.catalyst.expressions.Subtract;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.Test;

/**
 * Integer arithmetic in a load's source fails on overflow instead of wrapping, on every Spark line
 * (an EvalMode on 3.5 and 4.0, a NumericEvalContext on 4.1).
 */
class LoadSourcesTest {

  private static final Literal MAX = Literal.create(Long.MAX_VALUE, DataTypes.LongType);
  private static final Literal ONE = Literal.create(1L, DataTypes.LongType);

  private static Expression legacy(Expression arithmetic) {
    return LoadSources.withEvalMode(arithmetic, EvalMode$.MODULE$.LEGACY());
  }

  @Test
  void aWrappingSumIsMadeToFail() {
    Expression sum = legacy(new Add(MAX, ONE));
    assertTrue(LoadSources.wrapsOnOverflow(sum));
    assertEquals(Long.MIN_VALUE, sum.eval(null)); // what Spark's non-ANSI arithmetic would store
    Expression checked = LoadSources.failingOnOverflow(sum);
    assertFalse(LoadSources.wrapsOnOverflow(checked));
    assertThrows(ArithmeticException.class, () -> checked.eval(null));
  }

  @Test
  void differencesAndProductsToo() {
    Expression difference = LoadSources.failingOnOverflow(legacy(new Subtract(Literal.create(Long.MIN_VALUE, DataTypes.LongType), ONE)));
    assertThrows(ArithmeticException.class, () -> difference.eval(null));
    Expression product = LoadSources.failingOnOverflow(legacy(new Multiply(Literal.create(Integer.MAX_VALUE, DataTypes.IntegerType),
        Literal.create(2, DataTypes.IntegerType))));
    assertThrows(ArithmeticException.class, () -> product.eval(null));
  }

  @Test
  void inRangeArithmeticKeepsItsValue() {
    Expression checked = LoadSources.failingOnOverflow(legacy(new Add(ONE, ONE)));
    assertEquals(2L, checked.eval(null));
  }

  @Test
  void decimalAndDoubleArithmeticIsLeftAlone() {
    Literal half = Literal.create(0.5, DataTypes.DoubleType);
    assertFalse(LoadSources.wrapsOnOverflow(legacy(new Add(half, half))));
  }
}
