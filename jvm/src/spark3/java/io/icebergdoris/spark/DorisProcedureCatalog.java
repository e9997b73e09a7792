package io.icebergdoris.spark;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.spark.sql.catalyst.analysis.NoSuchProcedureException;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.iceberg.catalog.Procedure;
import org.apache.spark.sql.connector.iceberg.catalog.ProcedureCatalog;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The {@code doris} catalog of {@code CALL doris.<name>(...)}: every procedure it loads is answered
 * by the Python handler. Configure it as {@code spark.sql.catalog.doris=<this class>}.
 */
public final class DorisProcedureCatalog implements ProcedureCatalog {

  private String name = DorisCallParser.CATALOG;

  @Override
  public void initialize(String catalogName, CaseInsensitiveStringMap options) {
    this.name = catalogName;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Procedure loadProcedure(Identifier identifier) throws NoSuchProcedureException {
    String procedure = identifier.name().toLowerCase();
    if (identifier.namespace().length > 0) {
      throw new UnknownProcedureException(
          identifier,
          "Procedure names have no namespace: write CALL doris." + procedure + "(...)");
    }
    JsonNode description = Json.parse(ProcedureHandlers.current().describe(procedure));
    if (description.has("unknown")) {
      throw new UnknownProcedureException(identifier, description.get("unknown").asText());
    }
    StructType output = StructType.fromDDL(description.get("output").asText());
    return new PythonProcedure(procedure, output, description.path("description").asText(""));
  }
}
