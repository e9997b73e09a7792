package io.icebergdoris.iceberg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.expressions.Evaluator;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * The IN filters built from one string of values: evaluated by Iceberg against rows, they must
 * keep exactly the rows whose value is listed, once Iceberg has converted the text to the column's
 * type. (The Python side joins the values with a NUL character.)
 */
class KeyValuesTest {

  private static final String SEPARATOR = "\u0000";
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.required(2, "day", Types.DateType.get()),
      Types.NestedField.required(3, "amount", Types.DecimalType.of(9, 2)),
      Types.NestedField.required(4, "name", Types.StringType.get()),
      Types.NestedField.required(5, "at", Types.TimestampType.withoutZone()),
      Types.NestedField.required(6, "big", Types.DecimalType.of(38, 0)));

  private static boolean keeps(Expression filter, Object... row) {
    return new Evaluator(SCHEMA.asStruct(), filter).eval(new Values(row));
  }

  /** A row of Iceberg internal values (days for dates, microseconds for timestamps). */
  private static Object[] row(long id, LocalDate day, String amount, String name, LocalDateTime at, String big) {
    long micros = at.toEpochSecond(ZoneOffset.UTC) * 1_000_000L + at.getNano() / 1000;
    return new Object[] {id, (int) day.toEpochDay(), new BigDecimal(amount), name, micros, new BigDecimal(big)};
  }

  private static final LocalDate DAY = LocalDate.of(2024, 2, 29);
  private static final LocalDateTime AT = LocalDateTime.of(2024, 2, 29, 12, 30, 15, 250_000_000);

  @Test
  void longValuesKeepTheListedIdsOnly() {
    Expression filter = KeyValues.in("id", "long", String.join(SEPARATOR, "-9223372036854775808", "-1", "42"), SEPARATOR);
    assertTrue(keeps(filter, row(-1, DAY, "0.00", "a", AT, "0")));
    assertTrue(keeps(filter, row(42, DAY, "0.00", "a", AT, "0")));
    assertTrue(keeps(filter, row(Long.MIN_VALUE, DAY, "0.00", "a", AT, "0")));
    assertFalse(keeps(filter, row(1, DAY, "0.00", "a", AT, "0")));
    assertFalse(keeps(filter, row(41, DAY, "0.00", "a", AT, "0")));
  }

  @Test
  void datesAndTimestampsAreIsoTextIcebergConverts() {
    Expression days = KeyValues.in("day", "string", String.join(SEPARATOR, "2024-02-29", "1969-12-31"), SEPARATOR);
    assertTrue(keeps(days, row(1, DAY, "0.00", "a", AT, "0")));
    assertTrue(keeps(days, row(1, LocalDate.of(1969, 12, 31), "0.00", "a", AT, "0")));
    assertFalse(keeps(days, row(1, DAY.plusDays(1), "0.00", "a", AT, "0")));

    Expression times = KeyValues.in("at", "string", "2024-02-29T12:30:15.250", SEPARATOR);
    assertTrue(keeps(times, row(1, DAY, "0.00", "a", AT, "0")));
    assertFalse(keeps(times, row(1, DAY, "0.00", "a", AT.plusNanos(1000), "0")));
  }

  @Test
  void decimalValuesAtTheColumnsScaleAndBeyondLongs() {
    Expression amounts = KeyValues.in("amount", "decimal", String.join(SEPARATOR, "-1.50", "10.00"), SEPARATOR);
    assertTrue(keeps(amounts, row(1, DAY, "-1.50", "a", AT, "0")));
    assertTrue(keeps(amounts, row(1, DAY, "10.00", "a", AT, "0")));
    assertFalse(keeps(amounts, row(1, DAY, "1.50", "a", AT, "0")));

    // LARGEINT keys go as decimals: values past a long must not be truncated.
    String huge = "170141183460469231731687303715884105727";
    Expression bigs = KeyValues.in("big", "decimal", huge, SEPARATOR);
    assertTrue(keeps(bigs, row(1, DAY, "0.00", "a", AT, huge)));
    assertFalse(keeps(bigs, row(1, DAY, "0.00", "a", AT, "170141183460469231731687303715884105726")));
  }

  @Test
  void stringValuesAreTakenAsTheyAreEmptyOnesIncluded() {
    // An empty value between two separators, or at either end, is a value of its own.
    Expression filter = KeyValues.in("name", "string", String.join(SEPARATOR, "a,b", "", " x "), SEPARATOR);
    assertTrue(keeps(filter, row(1, DAY, "0.00", "a,b", AT, "0")));
    assertTrue(keeps(filter, row(1, DAY, "0.00", "", AT, "0")));
    assertTrue(keeps(filter, row(1, DAY, "0.00", " x ", AT, "0")));
    assertFalse(keeps(filter, row(1, DAY, "0.00", "a", AT, "0")));
    assertFalse(keeps(filter, row(1, DAY, "0.00", "x", AT, "0")));
  }

  @Test
  void aSeparatorIsLiteralTextNotAPattern() {
    Expression filter = KeyValues.in("name", "string", "a.b|c", "|");
    assertTrue(keeps(filter, row(1, DAY, "0.00", "a.b", AT, "0")));
    assertTrue(keeps(filter, row(1, DAY, "0.00", "c", AT, "0")));
    assertFalse(keeps(filter, row(1, DAY, "0.00", "a", AT, "0")));
  }

  @Test
  void theOneEmptyStringKeyIsKept() {
    // A batch whose only key is '' joins to the empty text: the filter prunes the files a lookup
    // reads, so it must keep that key's rows (dropping them would miss the stored row).
    Expression filter = KeyValues.in("name", "string", "", SEPARATOR);
    assertTrue(keeps(filter, row(1, DAY, "0.00", "", AT, "0")));
    assertFalse(keeps(filter, row(1, DAY, "0.00", "a", AT, "0")));
  }

  @Test
  void noNumbersKeepNoRows() {
    // No number is empty text: for numbers the empty text is the empty list.
    assertFalse(keeps(KeyValues.in("id", "long", "", SEPARATOR), row(0, DAY, "0.00", "a", AT, "0")));
    assertFalse(keeps(KeyValues.in("amount", "decimal", "", SEPARATOR), row(0, DAY, "0.00", "a", AT, "0")));
  }

  @Test
  void unknownKindsAndMalformedNumbersAreRefused() {
    IllegalArgumentException unknown =
        assertThrows(IllegalArgumentException.class, () -> KeyValues.in("id", "double", "1.5", SEPARATOR));
    assertEquals("Unknown key value kind: double", unknown.getMessage());
    assertThrows(NumberFormatException.class, () -> KeyValues.in("id", "long", "1" + SEPARATOR + "x", SEPARATOR));
    assertThrows(NumberFormatException.class, () -> KeyValues.in("amount", "decimal", "1,5", SEPARATOR));
  }

  /** Row values by position, as Iceberg's evaluator reads a StructLike. */
  private static final class Values implements StructLike {
    private final Object[] values;

    Values(Object[] values) {
      this.values = values;
    }

    @Override
    public int size() {
      return values.length;
    }

    @Override
    public <T> T get(int pos, Class<T> javaClass) {
      return javaClass.cast(values[pos]);
    }

    @Override
    public <T> void set(int pos, T value) {
      values[pos] = value;
    }
  }
}
