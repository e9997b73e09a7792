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
   * Iceberg converts when it binds the expression). The empty text is no values for numbers but
   * one empty string for strings: the list of one empty string joins to it too, and a filter
   * that dropped that key's rows would hide the stored row a load must find.
   */
  public static Expression in(String column, String kind, String values, String separator) {
    List<Object> parsed = new ArrayList<>();
    if (!values.isEmpty() || "string".equals(kind)) {
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
