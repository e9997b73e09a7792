package io.icebergdoris.spark;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Making a {@code format("doris")} sink, the same on every Spark line (each line's {@code
 * DorisSinkProvider} converts Spark's Scala arguments): the Python side checks the options when
 * the query starts, so a bad option fails {@code start()}, not the first batch.
 */
final class DorisSinks {

  private static final ObjectMapper MAPPER = new ObjectMapper();

  private DorisSinks() {}

  static DorisSink create(Map<String, String> options, List<String> partitionColumns) {
    if (!partitionColumns.isEmpty()) {
      throw new DorisProcedureException("ProcedureArgumentError",
          "format(\"doris\") takes no partitionBy(...): the Doris table's own partitioning places each row; "
              + "remove partitionBy " + partitionColumns);
    }
    String optionsJson;
    try {
      optionsJson = MAPPER.writeValueAsString(new TreeMap<>(options));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Could not write the sink's options as JSON", e);
    }
    JsonNode answer = Json.parse(ProcedureHandlers.current(DorisSink.WHAT).streamOptions(optionsJson));
    failIfError(answer);
    return new DorisSink(answer.get("table").asText(), optionsJson);
  }

  /**
   * The Python side's refusal as the exception the query fails with: a plain {@link
   * DorisProcedureException} (not a CALL's), whose message Spark shows as it is.
   */
  static void failIfError(JsonNode answer) {
    if (answer.has("error")) {
      JsonNode error = answer.get("error");
      throw new DorisProcedureException(error.path("type").asText("DorisError"), error.path("message").asText());
    }
  }
}
