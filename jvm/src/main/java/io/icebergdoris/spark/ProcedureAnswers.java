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
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.DataType;
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
 * One call of a Python procedure, the same on every Spark line: the JSON argument object goes to
 * the Python handler, its answer comes back as rows of the procedure's output type, or as the
 * user-facing {@link DorisProcedureException} the Python side raised.
 */
final class ProcedureAnswers {

  private ProcedureAnswers() {}

  /** A procedure's rows and their type: its declared output, or a frame's own columns. */
  static final class Answer {
    final InternalRow[] rows;
    final StructType type;

    Answer(InternalRow[] rows, StructType type) {
      this.rows = rows;
      this.type = type;
    }
  }

  /** The rows of the procedure's declared output type (Spark 3.5's CALL knows no other). */
  static InternalRow[] call(String procedure, String argumentsJson, StructType output) {
    Answer answer = answer(procedure, argumentsJson, output);
    if (!answer.type.equals(output)) {
      throw SparkCompat.procedureFailure("ProcedureArgumentError",
          "doris." + procedure + " returns rows with columns that depend on its arguments (" + answer.type.simpleString()
              + "), which CALL on this Spark line cannot return; call it from Python (iceberg_doris.doris." + procedure
              + "(spark, ...), a DataFrame) or on Spark 4");
    }
    return answer.rows;
  }

  /**
   * A Spark statement on a Doris table run as {@code procedure} (see {@code DorisStatementRule}),
   * with the session settings Doris's statements take ({@code settingsJson}, see {@link
   * ProcedureHandler#statement}), which the Python side applies. Rows of {@code output}.
   */
  static InternalRow[] statement(
      String statement, String procedure, String argumentsJson, String settingsJson, StructType output) {
    JsonNode answer = Json.parse(ProcedureHandlers.current().statement(statement, procedure, argumentsJson, settingsJson));
    failIfError(answer);
    List<InternalRow> rows = new ArrayList<>();
    for (JsonNode row : answer.get("rows")) {
      rows.add(toRow(row, output));
    }
    return rows.toArray(new InternalRow[0]);
  }

  private static void failIfError(JsonNode answer) {
    if (answer.has("error")) {
      JsonNode error = answer.get("error");
      throw SparkCompat.procedureFailure(error.path("type").asText("DorisError"), error.path("message").asText());
    }
  }

  /**
   * The procedure's answer: rows of {@code output}, or the rows of the DataFrame it answered with
   * (see {@link ProcedureFrames}) with that frame's columns.
   */
  static Answer answer(String procedure, String argumentsJson, StructType output) {
    JsonNode answer = Json.parse(ProcedureHandlers.current().call(procedure, argumentsJson));
    failIfError(answer);
    if (answer.has("frame")) {
      org.apache.spark.sql.Dataset<org.apache.spark.sql.Row> frame = ProcedureFrames.take(answer.get("frame").asText());
      if (frame == null) {
        throw new IllegalStateException("doris." + procedure + " answered with a frame that is not there");
      }
      return new Answer(frame.queryExecution().executedPlan().executeCollect(), frame.schema());
    }
    List<InternalRow> rows = new ArrayList<>();
    for (JsonNode row : answer.get("rows")) {
      rows.add(toRow(row, output));
    }
    return new Answer(rows.toArray(new InternalRow[0]), output);
  }

  static InternalRow toRow(JsonNode values, StructType output) {
    StructField[] fields = output.fields();
    Object[] cells = new Object[fields.length];
    for (int i = 0; i < fields.length; i++) {
      cells[i] = toCatalyst(values.get(i), fields[i].dataType());
    }
    return new GenericInternalRow(cells);
  }

  /** Python sends dates as epoch days and timestamps as epoch microseconds. */
  static Object toCatalyst(JsonNode value, DataType type) {
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
