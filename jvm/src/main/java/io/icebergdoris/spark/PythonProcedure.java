package io.icebergdoris.spark;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.ArrayBasedMapData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.connector.iceberg.catalog.Procedure;
import org.apache.spark.sql.connector.iceberg.catalog.ProcedureParameter;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A procedure whose body is Python. It declares one string parameter, the JSON argument object that
 * {@link DorisCallParser} builds; the Python side binds it to the procedure's real parameters.
 */
final class PythonProcedure implements Procedure {

  static final String ARGUMENTS = "arguments_json";

  private final String name;
  private final StructType output;
  private final String description;

  PythonProcedure(String name, StructType output, String description) {
    this.name = name;
    this.output = output;
    this.description = description;
  }

  @Override
  public ProcedureParameter[] parameters() {
    return new ProcedureParameter[] {ProcedureParameter.required(ARGUMENTS, DataTypes.StringType)};
  }

  @Override
  public StructType outputType() {
    return output;
  }

  @Override
  public String description() {
    return description;
  }

  @Override
  public InternalRow[] call(InternalRow args) {
    String arguments = args.isNullAt(0) ? "{}" : args.getUTF8String(0).toString();
    JsonNode answer = Json.parse(ProcedureHandlers.current().call(name, arguments));
    if (answer.has("error")) {
      JsonNode error = answer.get("error");
      throw new DorisProcedureException(
          error.path("type").asText("DorisError"), error.path("message").asText());
    }
    List<InternalRow> rows = new ArrayList<>();
    for (JsonNode row : answer.get("rows")) {
      rows.add(toRow(row));
    }
    return rows.toArray(new InternalRow[0]);
  }

  private InternalRow toRow(JsonNode values) {
    StructField[] fields = output.fields();
    Object[] cells = new Object[fields.length];
    for (int i = 0; i < fields.length; i++) {
      cells[i] = toCatalyst(values.get(i), fields[i].dataType());
    }
    return new GenericInternalRow(cells);
  }

  /** Python sends dates as epoch days and timestamps as epoch microseconds. */
  private static Object toCatalyst(JsonNode value, DataType type) {
    if (value == null || value.isNull()) {
      return null;
    }
    if (type instanceof StringType) {
      return UTF8String.fromString(value.isTextual() ? value.asText() : value.toString());
    } else if (type instanceof LongType || type instanceof TimestampType) {
      return value.asLong();
    } else if (type instanceof IntegerType || type instanceof DateType) {
      return value.asInt();
    } else if (type instanceof DoubleType) {
      return value.asDouble();
    } else if (type instanceof BooleanType) {
      return value.asBoolean();
    } else if (type instanceof ArrayType) {
      DataType element = ((ArrayType) type).elementType();
      List<Object> items = new ArrayList<>();
      for (JsonNode item : value) {
        items.add(toCatalyst(item, element));
      }
      return new GenericArrayData(items.toArray());
    } else if (type instanceof MapType) {
      MapType mapType = (MapType) type;
      List<Object> keys = new ArrayList<>();
      List<Object> mapValues = new ArrayList<>();
      Iterator<Map.Entry<String, JsonNode>> entries = value.fields();
      while (entries.hasNext()) {
        Map.Entry<String, JsonNode> entry = entries.next();
        keys.add(UTF8String.fromString(entry.getKey()));
        mapValues.add(toCatalyst(entry.getValue(), mapType.valueType()));
      }
      return new ArrayBasedMapData(
          new GenericArrayData(keys.toArray()), new GenericArrayData(mapValues.toArray()));
    }
    throw new IllegalStateException("Unsupported procedure output type " + type.simpleString());
  }
}
