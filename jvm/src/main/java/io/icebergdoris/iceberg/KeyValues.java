package io.icebergdoris.iceberg;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;

/**
 * Iceberg {@code IN} expressions built from one string of values: sending thousands of keys one
 * py4j call each cost seconds per load.
 */
public final class KeyValues {

  private KeyValues() {}

  /**
   * {@code column IN (values)}; {@code values} are joined by {@code separator} and parsed as
   * {@code kind}: "long", "decimal" or "string" (dates and timestamps as ISO strings, which
   * Iceberg converts when it binds the expression).
   */
  public static Expression in(String column, String kind, String values, String separator) {
    List<Object> parsed = new ArrayList<>();
    if (!values.isEmpty()) {
      for (String value : values.split(java.util.regex.Pattern.quote(separator), -1)) {
        parsed.add(parse(kind, value));
      }
    }
    return Expressions.in(column, parsed);
  }

  private static Object parse(String kind, String value) {
    switch (kind) {
      case "long":
        return Long.parseLong(value);
      case "decimal":
        return new BigDecimal(value);
      case "string":
        return value;
      default:
        throw new IllegalArgumentException("Unknown key value kind: " + kind);
    }
  }
}
