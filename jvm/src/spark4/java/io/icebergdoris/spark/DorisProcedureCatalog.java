package io.icebergdoris.spark;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.ProcedureCatalog;
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The {@code doris} catalog of {@code CALL doris.<name>(...)} on Spark 4, through Spark's own
 * procedure API ({@code CALL} is Spark SQL there, so no parser extension is involved). Every
 * procedure it loads is answered by the Python handler. Configure it as
 * {@code spark.sql.catalog.doris=<this class>}.
 */
public final class DorisProcedureCatalog implements ProcedureCatalog {

  /** Catalog name that routes a CALL to us. */
  public static final String CATALOG = "doris";

  private String name = CATALOG;

  @Override
  public void initialize(String catalogName, CaseInsensitiveStringMap options) {
    this.name = catalogName;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public UnboundProcedure loadProcedure(Identifier identifier) {
    String procedure = identifier.name().toLowerCase();
    if (identifier.namespace().length > 0) {
      throw new SparkProcedureException(
          "ProcedureArgumentError",
          "Procedure names have no namespace: write CALL doris." + procedure + "(...)");
    }
    JsonNode description = Json.parse(ProcedureHandlers.current().describe(procedure));
    if (description.has("unknown")) {
      throw new SparkProcedureException("ProcedureNotFoundError", description.get("unknown").asText());
    }
    StructType output = StructType.fromDDL(description.get("output").asText());
    return new PythonProcedure(procedure, output, description.path("description").asText(""));
  }

  /** Spark 4.1's listing (not in 4.0's interface, hence no {@code @Override}). */
  public Identifier[] listProcedures(String[] namespace) {
    // The names live on the Python side; CALL doris.help() lists them with their signatures.
    return new Identifier[0];
  }
}
