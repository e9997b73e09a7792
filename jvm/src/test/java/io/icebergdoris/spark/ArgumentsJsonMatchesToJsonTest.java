package io.icebergdoris.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.RuntimeReplaceable;
import org.apache.spark.sql.catalyst.expressions.StructsToJson;
import org.apache.spark.sql.catalyst.util.ArrayBasedMapData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;
import scala.Option;

/**
 * On Spark 3.5 a {@code CALL doris.*}'s arguments reach Python as {@code to_json(named_struct(...))}
 * (with {@code ignoreNullFields=false}); on Spark 4 {@link ArgumentsJson} writes them. A procedure
 * must bind the same values on every line, so for each type a procedure may take, ArgumentsJson
 * must write exactly what Spark's own {@code to_json} writes for the same value and session zone.
 */
class ArgumentsJsonMatchesToJsonTest {

  /** What Spark's to_json makes of {@code row} (its expression evaluated directly, no session needed). */
  static String toJson(StructType type, InternalRow row, ZoneId zone) {
    scala.collection.immutable.Map<String, String> options =
        scala.collection.immutable.Map$.MODULE$.<String, String>empty().updated("ignoreNullFields", "false");
    StructsToJson toJson = new StructsToJson(options, new Literal(row, type), Option.apply(zone.getId()));
    // Spark 4 evaluates to_json through its replacement; Spark 3.5 evaluates it itself.
    Expression evaluated = toJson instanceof RuntimeReplaceable ? ((RuntimeReplaceable) toJson).replacement() : toJson;
    return ((UTF8String) evaluated.eval(null)).toString();
  }

  private static final List<String> NAMES = new ArrayList<>();
  private static final List<DataType> TYPES = new ArrayList<>();
  private static final List<Object> VALUES = new ArrayList<>();

  private static void value(DataType type, Object value) {
    NAMES.add("a" + NAMES.size());
    TYPES.add(type);
    VALUES.add(value);
  }

  static {
    value(DataTypes.StringType, UTF8String.fromString("db.t \"quoted\" \\ é \u0001"));
    value(DataTypes.BooleanType, false);
    value(DataTypes.ByteType, (byte) -8);
    value(DataTypes.ShortType, (short) 300);
    value(DataTypes.IntegerType, Integer.MIN_VALUE);
    value(DataTypes.LongType, Long.MAX_VALUE);
    value(DataTypes.FloatType, 0.1f);
    value(DataTypes.FloatType, 3.4e38f);
    value(DataTypes.FloatType, Float.NaN);
    value(DataTypes.DoubleType, 0.1);
    value(DataTypes.DoubleType, -0.0);
    value(DataTypes.DoubleType, 1e-7);
    value(DataTypes.DoubleType, 1.0e300);
    value(DataTypes.DoubleType, Double.POSITIVE_INFINITY);
    value(DataTypes.createDecimalType(10, 3), Decimal.apply(new BigDecimal("-1234567.890"), 10, 3));
    value(DataTypes.createDecimalType(38, 18), Decimal.apply(new BigDecimal("0.000000000000000001"), 38, 18));
    value(DataTypes.createDecimalType(5, 0), Decimal.apply(new BigDecimal("0"), 5, 0));
    value(DataTypes.DateType, (int) LocalDate.of(2024, 2, 29).toEpochDay());
    value(DataTypes.DateType, (int) LocalDate.of(1900, 1, 1).toEpochDay());
    for (long micros : new long[] {
        1_700_000_000_123_456L, 1_700_000_000_000_000L, -1L, 0L,
        micros(LocalDateTime.of(2024, 3, 10, 10, 30)), micros(LocalDateTime.of(2024, 7, 1, 0, 0, 0, 5_000_000))}) {
      value(DataTypes.TimestampType, micros);
      value(DataTypes.TimestampNTZType, micros);
    }
    value(DataTypes.BinaryType, new byte[] {0, 1, 2, (byte) 0xfe, (byte) 0xff});
    value(DataTypes.createArrayType(DataTypes.StringType),
        new GenericArrayData(new Object[] {UTF8String.fromString("p1"), null, UTF8String.fromString("")}));
    value(DataTypes.createArrayType(DataTypes.createArrayType(DataTypes.LongType)),
        new GenericArrayData(new Object[] {new GenericArrayData(new Object[] {1L, 2L}), new GenericArrayData(new Object[0])}));
    value(DataTypes.createMapType(DataTypes.StringType, DataTypes.IntegerType),
        new ArrayBasedMapData(new GenericArrayData(new Object[] {UTF8String.fromString("k"), UTF8String.fromString("n")}),
            new GenericArrayData(new Object[] {1, null})));
    value(DataTypes.createMapType(DataTypes.IntegerType, DataTypes.createArrayType(DataTypes.DateType)),
        new ArrayBasedMapData(new GenericArrayData(new Object[] {7}),
            new GenericArrayData(new Object[] {new GenericArrayData(new Object[] {19_000, null})})));
    value(DataTypes.createArrayType(DataTypes.createMapType(DataTypes.StringType, DataTypes.StringType)),
        new GenericArrayData(new Object[] {new ArrayBasedMapData(new GenericArrayData(new Object[] {UTF8String.fromString("a")}),
            new GenericArrayData(new Object[] {UTF8String.fromString("b")}))}));
    value(new StructType().add("x", DataTypes.IntegerType).add("y", DataTypes.StringType),
        new GenericInternalRow(new Object[] {1, null}));
    value(DataTypes.StringType, null);
    value(DataTypes.createArrayType(DataTypes.IntegerType), null);
  }

  private static long micros(LocalDateTime local) {
    return local.toEpochSecond(ZoneOffset.UTC) * 1_000_000L + local.getNano() / 1000;
  }

  @Test
  void everyArgumentTypeIsWrittenAsToJsonWritesItInEveryZone() {
    for (String zone : new String[] {"UTC", "Asia/Shanghai", "America/Los_Angeles", "Asia/Kolkata"}) {
      for (int i = 0; i < VALUES.size(); i++) {
        StructType type = new StructType().add(NAMES.get(i), TYPES.get(i));
        InternalRow row = new GenericInternalRow(new Object[] {VALUES.get(i)});
        String what = TYPES.get(i).simpleString() + " " + VALUES.get(i) + " in " + zone;
        assertEquals(toJson(type, row, ZoneId.of(zone)), ArgumentsJson.write(type, row, new boolean[] {true}, ZoneId.of(zone)), what);
      }
    }
  }

  @Test
  void aWholeArgumentListIsOneObjectInArgumentOrder() {
    StructType type = new StructType();
    for (int i = 0; i < VALUES.size(); i++) {
      type = type.add(NAMES.get(i), TYPES.get(i));
    }
    InternalRow row = new GenericInternalRow(VALUES.toArray());
    boolean[] named = new boolean[VALUES.size()];
    java.util.Arrays.fill(named, true);
    ZoneId zone = ZoneId.of("Europe/Berlin");
    assertEquals(toJson(type, row, zone), ArgumentsJson.write(type, row, named, zone));
  }
}
