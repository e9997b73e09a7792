package io.icebergdoris.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.ArrayBasedMapData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

/**
 * The argument object Spark 4's procedure API hands the Python side: it must read as the one
 * Spark 3.5's {@code to_json} built, so a procedure binds the same values on every line.
 */
class ProcedureArgumentsJsonTest {

  private static final ZoneId UTC = ZoneOffset.UTC;

  @Test
  void namedArgumentsAreKeyedByNameAndPositionalOnesByIndex() {
    StructType types = new StructType().add("table", DataTypes.StringType).add("p1", DataTypes.LongType);
    InternalRow values = new GenericInternalRow(new Object[] {UTF8String.fromString("db.t"), 7L});

    assertEquals("{\"table\":\"db.t\",\"#1\":7}", ArgumentsJson.write(types, values, new boolean[] {true, false}, UTC));
    assertEquals("{\"#0\":\"db.t\",\"#1\":7}", ArgumentsJson.write(types, values, new boolean[] {false, false}, UTC));
  }

  @Test
  void nullsStayNullAndBooleansNumbersAndDecimalsKeepTheirKind() {
    StructType types = new StructType()
        .add("a", DataTypes.NullType).add("b", DataTypes.BooleanType).add("c", DataTypes.DoubleType)
        .add("d", DataTypes.createDecimalType(5, 2)).add("e", DataTypes.IntegerType).add("f", DataTypes.StringType);
    InternalRow values = new GenericInternalRow(
        new Object[] {null, true, 0.5, Decimal.apply(new BigDecimal("1.50")), -3, null});

    assertEquals("{\"a\":null,\"b\":true,\"c\":0.5,\"d\":1.50,\"e\":-3,\"f\":null}",
        ArgumentsJson.write(types, values, named(6), UTC));
  }

  @Test
  void nanAndInfinityAreWrittenAsStringsAsToJsonDoes() {
    StructType types = new StructType().add("x", DataTypes.DoubleType).add("y", DataTypes.FloatType);
    InternalRow values = new GenericInternalRow(new Object[] {Double.NaN, Float.NEGATIVE_INFINITY});

    assertEquals("{\"x\":\"NaN\",\"y\":\"-Infinity\"}", ArgumentsJson.write(types, values, named(2), UTC));
  }

  @Test
  void datesAndTimestampsAreIsoTextTimestampsInTheSessionZone() {
    int days = (int) LocalDate.of(2024, 2, 29).toEpochDay();
    long micros = 1_700_000_000_123_456L; // 2023-11-14T22:13:20.123456Z
    StructType types = new StructType().add("d", DataTypes.DateType).add("t", DataTypes.TimestampType)
        .add("n", DataTypes.TimestampNTZType);
    InternalRow values = new GenericInternalRow(new Object[] {days, micros, micros});

    assertEquals("{\"d\":\"2024-02-29\",\"t\":\"2023-11-14T22:13:20.123Z\",\"n\":\"2023-11-14T22:13:20.123\"}",
        ArgumentsJson.write(types, values, named(3), UTC));
    assertEquals("{\"d\":\"2024-02-29\",\"t\":\"2023-11-15T06:13:20.123+08:00\",\"n\":\"2023-11-14T22:13:20.123\"}",
        ArgumentsJson.write(types, values, named(3), ZoneId.of("Asia/Shanghai")));
  }

  @Test
  void timestampsBeforeTheEpochRoundTowardsThePast() {
    StructType types = new StructType().add("t", DataTypes.TimestampType);
    InternalRow values = new GenericInternalRow(new Object[] {-1L}); // one microsecond before 1970

    assertEquals("{\"t\":\"1969-12-31T23:59:59.999Z\"}", ArgumentsJson.write(types, values, named(1), UTC));
  }

  @Test
  void arraysAndMapsNestAsJsonArraysAndObjects() {
    StructType types = new StructType()
        .add("parts", DataTypes.createArrayType(DataTypes.StringType))
        .add("props", DataTypes.createMapType(DataTypes.StringType, DataTypes.StringType))
        .add("ranges", DataTypes.createArrayType(DataTypes.createArrayType(DataTypes.IntegerType)));
    GenericArrayData parts = new GenericArrayData(new Object[] {UTF8String.fromString("p1"), null});
    ArrayBasedMapData props = new ArrayBasedMapData(
        new GenericArrayData(new Object[] {UTF8String.fromString("k")}),
        new GenericArrayData(new Object[] {UTF8String.fromString("v")}));
    GenericArrayData ranges = new GenericArrayData(
        new Object[] {new GenericArrayData(new Object[] {1, 10}), new GenericArrayData(new Object[] {10, 20})});
    InternalRow values = new GenericInternalRow(new Object[] {parts, props, ranges});

    assertEquals("{\"parts\":[\"p1\",null],\"props\":{\"k\":\"v\"},\"ranges\":[[1,10],[10,20]]}",
        ArgumentsJson.write(types, values, named(3), UTC));
  }

  @Test
  void aTypeNoProcedureTakesIsRefusedWithTheFix() {
    StructType types = new StructType().add("i", DataTypes.CalendarIntervalType);
    InternalRow values = new GenericInternalRow(new Object[] {new org.apache.spark.unsafe.types.CalendarInterval(0, 1, 0)});

    DorisProcedureException refused =
        assertThrows(DorisProcedureException.class, () -> ArgumentsJson.write(types, values, named(1), UTC));
    assertEquals("Procedure arguments of type interval are not supported: pass the value as a string, number, "
        + "boolean, date, array or map.", refused.getMessage());
  }

  private static boolean[] named(int count) {
    boolean[] named = new boolean[count];
    java.util.Arrays.fill(named, true);
    return named;
  }
}
