package io.icebergdoris.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Making a {@code format("doris")} sink: the writer's options go to the Python side as JSON when the
 * query starts, and its refusal fails the start with its own message.
 */
class DorisSinksTest {

  /** The Python side's part for sink options, answering with a fixed JSON text. */
  private static final class Checking implements ProcedureHandler {
    final String answer;
    final List<String> asked = new ArrayList<>();

    Checking(String answer) {
      this.answer = answer;
    }

    @Override
    public String describe(String procedure) {
      return "{}";
    }

    @Override
    public String call(String procedure, String argumentsJson) {
      return "{}";
    }

    @Override
    public String statement(String statement, String procedure, String argumentsJson, String settingsJson) {
      return "{}";
    }

    @Override
    public String streamOptions(String optionsJson) {
      asked.add(optionsJson);
      return answer;
    }

    @Override
    public String streamBatch(String optionsJson, Dataset<Row> batch, long batchId) {
      throw new AssertionError("no batch here");
    }
  }

  @AfterEach
  void unregister() {
    ProcedureHandlers.unregister();
  }

  @Test
  void theOptionsAreCheckedByThePythonSideWhenTheSinkIsMade() {
    Checking python = new Checking("{\"table\": \"crm.users\"}");
    ProcedureHandlers.register(python);
    Map<String, String> options = new LinkedHashMap<>();
    options.put("table", "crm.users");
    options.put("delete_on", "op = 'D' AND note = \"x\"");

    DorisSink sink = DorisSinks.create(options, List.of());

    assertEquals(List.of("{\"delete_on\":\"op = 'D' AND note = \\\"x\\\"\",\"table\":\"crm.users\"}"), python.asked);
    assertEquals("DorisSink[crm.users]", sink.toString());
    assertTrue(sink.metrics().isEmpty(), "no batch, no metrics");
  }

  @Test
  void aRefusedOptionFailsWithThePythonSideMessage() {
    ProcedureHandlers.register(new Checking(
        "{\"error\": {\"type\": \"ProcedureArgumentError\", \"message\": \"format(\\\"doris\\\") has no option 'tabel'\"}}"));

    DorisProcedureException refused =
        assertThrows(DorisProcedureException.class, () -> DorisSinks.create(Map.of("tabel", "x"), List.of()));

    assertEquals("format(\"doris\") has no option 'tabel'", refused.getMessage());
    assertEquals("ProcedureArgumentError", refused.errorType());
  }

  @Test
  void partitionByIsRefusedAndNoPythonSideIsAMessage() {
    ProcedureHandlers.register(new Checking("{\"table\": \"t.t\"}"));
    DorisProcedureException partitioned = assertThrows(DorisProcedureException.class,
        () -> DorisSinks.create(Map.of("table", "t.t"), List.of("dt")));
    assertTrue(partitioned.getMessage().contains("takes no partitionBy"), partitioned.getMessage());

    ProcedureHandlers.unregister();
    DorisProcedureException missing = assertThrows(DorisProcedureException.class,
        () -> DorisSinks.create(Map.of("table", "t.t"), List.of()));
    assertTrue(missing.getMessage().startsWith("format(\"doris\") needs the Python side of iceberg-doris"),
        missing.getMessage());
  }
}
