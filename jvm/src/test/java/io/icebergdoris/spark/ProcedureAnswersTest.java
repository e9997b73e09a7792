package io.icebergdoris.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.MapData;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A procedure's answer from the Python side: its JSON rows become Spark rows of the procedure's
 * output type (dates as epoch days, timestamps as epoch microseconds), and its error becomes the
 * user-facing exception with the Python error's type and message.
 */
class ProcedureAnswersTest {

  /** The Python side's part, answering with a fixed JSON text and remembering what it was asked. */
  private static final class Answering implements ProcedureHandler {
    final String answer;
    final List<String> calls = new ArrayList<>();

    Answering(String answer) {
      this.answer = answer;
    }

    @Override
    public String describe(String procedure) {
      return "{}";
    }

    @Override
    public String call(String procedure, String argumentsJson) {
      calls.add(procedure + " " + argumentsJson);
      return answer;
    }

    @Override
    public String statement(String statement, String procedure, String argumentsJson, String settingsJson) {
      calls.add(statement + ": " + procedure + " " + argumentsJson + " " + settingsJson);
      return answer;
    }

    @Override
    public String streamOptions(String optionsJson) {
      calls.add("stream options " + optionsJson);
      return answer;
    }

    @Override
    public String streamBatch(String optionsJson, org.apache.spark.sql.Dataset<org.apache.spark.sql.Row> batch, long batchId) {
      calls.add("stream batch " + batchId + " " + optionsJson);
      return answer;
    }
  }

  @AfterEach
  void unregister() {
    ProcedureHandlers.unregister();
  }

  private static final StructType OUTPUT = new StructType()
      .add("name", DataTypes.StringType).add("rows", DataTypes.LongType).add("files", DataTypes.IntegerType)
      .add("ratio", DataTypes.DoubleType).add("done", DataTypes.BooleanType).add("day", DataTypes.DateType)
      .add("at", DataTypes.TimestampType).add("parts", DataTypes.createArrayType(DataTypes.StringType))
      .add("props", DataTypes.createMapType(DataTypes.StringType, DataTypes.LongType));

  @Test
  void rowsComeBackAsSparkValuesOfTheOutputType() {
    Answering python = new Answering("{\"rows\": ["
        + "[\"p1\", 9007199254740993, 3, 0.5, true, 19782, 1700000000123456, [\"a\", null], {\"k\": 1, \"n\": null}],"
        + "[null, null, null, null, null, null, null, null, null]]}");
    ProcedureHandlers.register(python);

    InternalRow[] rows = ProcedureAnswers.call("compact", "{\"table\":\"db.t\"}", OUTPUT);

    assertEquals(List.of("compact {\"table\":\"db.t\"}"), python.calls);
    assertEquals(2, rows.length);
    InternalRow row = rows[0];
    assertEquals(UTF8String.fromString("p1"), row.getUTF8String(0));
    assertEquals(9007199254740993L, row.getLong(1), "a long past a double's 53 bits stays exact");
    assertEquals(3, row.getInt(2));
    assertEquals(0.5, row.getDouble(3));
    assertTrue(row.getBoolean(4));
    assertEquals(19782, row.getInt(5));
    assertEquals(1700000000123456L, row.getLong(6));
    ArrayData parts = row.getArray(7);
    assertEquals(2, parts.numElements());
    assertEquals(UTF8String.fromString("a"), parts.getUTF8String(0));
    assertTrue(parts.isNullAt(1));
    MapData props = row.getMap(8);
    assertEquals(2, props.numElements());
    assertEquals(UTF8String.fromString("k"), props.keyArray().getUTF8String(0));
    assertEquals(1L, props.valueArray().getLong(0));
    assertTrue(props.valueArray().isNullAt(1));
    for (int i = 0; i < OUTPUT.size(); i++) {
      assertTrue(rows[1].isNullAt(i), "JSON null is NULL in column " + i);
    }
  }

  @Test
  void aStringColumnTakesAnyJsonValueAsText() {
    StructType output = new StructType().add("v", DataTypes.StringType);
    assertEquals(UTF8String.fromString("{\"a\":[1,2]}"), ProcedureAnswers.toRow(Json.parse("[{\"a\": [1, 2]}]"), output).get(0, DataTypes.StringType));
    assertEquals(UTF8String.fromString("12"), ProcedureAnswers.toRow(Json.parse("[12]"), output).get(0, DataTypes.StringType));
    assertNull(ProcedureAnswers.toRow(Json.parse("[]"), output).get(0, DataTypes.StringType), "a missing value is NULL");
  }

  @Test
  void pythonsErrorBecomesTheUserFacingException() {
    ProcedureHandlers.register(new Answering("{\"error\": {\"type\": \"PartitionNotFoundError\", \"message\": \"no partition p9\"}}"));
    DorisProcedureException failure =
        assertThrows(DorisProcedureException.class, () -> ProcedureAnswers.call("drop_partition", "{}", OUTPUT));
    assertEquals("PartitionNotFoundError", failure.errorType());
    assertEquals("no partition p9", failure.getMessage());

    ProcedureHandlers.register(new Answering("{\"error\": {}}"));
    DorisProcedureException untyped = assertThrows(DorisProcedureException.class, () -> ProcedureAnswers.call("x", "{}", OUTPUT));
    assertEquals("DorisError", untyped.errorType());
  }

  @Test
  void withoutThePythonSideACallSaysHowToInstallIt() {
    ProcedureHandlers.unregister();
    DorisProcedureException missing = assertThrows(DorisProcedureException.class, () -> ProcedureAnswers.call("x", "{}", OUTPUT));
    assertEquals("ConfigurationError", missing.errorType());
    assertTrue(missing.getMessage().contains("iceberg_doris.install(spark)"), missing::getMessage);
  }

  @Test
  void malformedAnswersAndUnsupportedTypesAreBridgeErrors() {
    ProcedureHandlers.register(new Answering("{\"rows\": [[1,"));
    IllegalStateException malformed = assertThrows(IllegalStateException.class, () -> ProcedureAnswers.call("x", "{}", OUTPUT));
    assertTrue(malformed.getMessage().startsWith("iceberg-doris bridge sent malformed JSON"), malformed::getMessage);

    assertThrows(IllegalStateException.class, () -> ProcedureAnswers.toCatalyst(Json.parse("1.5"), DataTypes.FloatType));
  }
}
