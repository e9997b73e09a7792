package io.icebergdoris.spark;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.types.StructType;

/**
 * What the {@code doris} procedure catalog of every Spark line loads for {@code CALL doris.<name>}:
 * the procedure the Python side declares (its output columns and description), or why there is
 * none. Each line's {@code DorisProcedureCatalog} wraps it in its own procedure API and error.
 */
record ProcedureLookup(String name, StructType output, String description, String errorType, String problem) {

  /** Looks {@code identifier} up on the Python side. */
  static ProcedureLookup of(Identifier identifier) {
    String procedure = identifier.name().toLowerCase();
    if (identifier.namespace().length > 0) {
      return new ProcedureLookup(procedure, null, null, "ProcedureArgumentError",
          "Procedure names have no namespace: write CALL doris." + procedure + "(...)");
    }
    JsonNode description = Json.parse(ProcedureHandlers.current().describe(procedure));
    if (description.has("unknown")) {
      return new ProcedureLookup(procedure, null, null, "ProcedureNotFoundError", description.get("unknown").asText());
    }
    StructType output = StructType.fromDDL(description.get("output").asText());
    return new ProcedureLookup(procedure, output, description.path("description").asText(""), null, null);
  }

  boolean found() {
    return problem == null;
  }
}
