package io.icebergdoris.spark;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.MapData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.NullType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;

/**
 * The JSON argument object the Python side binds, from arguments Spark already evaluated.
 *
 * <p>Named arguments are keyed by their name, positional ones {@code "#<index>"}; values are
 * written as Spark's {@code to_json} writes them (dates {@code yyyy-MM-dd}, timestamps ISO-8601
 * with their offset in the session time zone, binary as base64, maps as objects), so a
 * procedure binds the same values whichever Spark line parsed its {@code CALL}.
 */
public final class ArgumentsJson {

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final DateTimeFormatter TIMESTAMP =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSXXX");
  private static final DateTimeFormatter LOCAL_TIMESTAMP =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS");

  private ArgumentsJson() {}

  /**
   * The argument object of one call.
   *
   * @param types one field per argument, in the caller's order
   * @param values the evaluated arguments, in the same order
   * @param named for each argument, whether the caller named it
   * @param zone the session time zone, for timestamps
   */
  public static String write(StructType types, InternalRow values, boolean[] named, ZoneId zone) {
    ObjectNode object = NODES.objectNode();
    StructField[] fields = types.fields();
    for (int i = 0; i < fields.length; i++) {
      String key = named[i] ? fields[i].name() : "#" + i;
      object.set(key, value(values, i, fields[i].dataType(), zone));
    }
    return object.toString();
  }

  private static JsonNode value(InternalRow row, int ordinal, DataType type, ZoneId zone) {
    if (row.isNullAt(ordinal) || type instanceof NullType) {
      return NODES.nullNode();
    }
    return convert(row.get(ordinal, type), type, zone);
  }

  private static JsonNode convert(Object value, DataType type, ZoneId zone) {
    if (value == null || type instanceof NullType) {
      return NODES.nullNode();
    } else if (type instanceof StringType) {
      return NODES.textNode(value.toString());
    } else if (type instanceof BooleanType) {
      return NODES.booleanNode((Boolean) value);
    } else if (type instanceof ByteType || type instanceof ShortType || type instanceof IntegerType) {
      return NODES.numberNode(((Number) value).intValue());
    } else if (type instanceof LongType) {
      return NODES.numberNode((Long) value);
    } else if (type instanceof FloatType) {
      // As a float: widened to a double, 0.1f would read 0.10000000149011612 where to_json writes 0.1.
      float number = (Float) value;
      return Float.isFinite(number) ? NODES.numberNode(number) : NODES.textNode(Float.toString(number));
    } else if (type instanceof DoubleType) {
      double number = (Double) value;
      // JSON has no NaN or infinity; to_json writes them as strings.
      return Double.isFinite(number) ? NODES.numberNode(number) : NODES.textNode(Double.toString(number));
    } else if (type instanceof DecimalType) {
      return NODES.numberNode(((org.apache.spark.sql.types.Decimal) value).toJavaBigDecimal());
    } else if (type instanceof DateType) {
      return NODES.textNode(LocalDate.ofEpochDay((Integer) value).toString());
    } else if (type instanceof TimestampType) {
      return NODES.textNode(TIMESTAMP.format(instant((Long) value).atZone(zone)));
    } else if (type instanceof TimestampNTZType) {
      return NODES.textNode(LOCAL_TIMESTAMP.format(LocalDateTime.ofInstant(instant((Long) value), ZoneOffset.UTC)));
    } else if (type instanceof BinaryType) {
      return NODES.textNode(Base64.getEncoder().encodeToString((byte[]) value));
    } else if (type instanceof ArrayType) {
      DataType element = ((ArrayType) type).elementType();
      ArrayData array = (ArrayData) value;
      ArrayNode items = NODES.arrayNode();
      for (int i = 0; i < array.numElements(); i++) {
        items.add(array.isNullAt(i) ? NODES.nullNode() : convert(array.get(i, element), element, zone));
      }
      return items;
    } else if (type instanceof MapType) {
      MapType mapType = (MapType) type;
      MapData map = (MapData) value;
      ObjectNode entries = NODES.objectNode();
      for (int i = 0; i < map.numElements(); i++) {
        Object key = map.keyArray().get(i, mapType.keyType());
        Object entry = map.valueArray().isNullAt(i) ? null : map.valueArray().get(i, mapType.valueType());
        entries.set(keyText(key, mapType.keyType(), zone), convert(entry, mapType.valueType(), zone));
      }
      return entries;
    } else if (type instanceof StructType) {
      StructField[] fields = ((StructType) type).fields();
      InternalRow struct = (InternalRow) value;
      ObjectNode object = NODES.objectNode();
      for (int i = 0; i < fields.length; i++) {
        object.set(fields[i].name(), value(struct, i, fields[i].dataType(), zone));
      }
      return object;
    }
    throw SparkCompat.procedureFailure(
        "ProcedureArgumentError",
        "Procedure arguments of type " + type.simpleString() + " are not supported: "
            + "pass the value as a string, number, boolean, date, array or map.");
  }

  private static String keyText(Object key, DataType type, ZoneId zone) {
    JsonNode node = convert(key, type, zone);
    return node.isTextual() ? node.asText() : node.toString();
  }

  private static Instant instant(long micros) {
    return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000L);
  }
}
