package io.icebergdoris.spark;

import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.ProcedureCatalog;
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure;

/**
 * The {@code doris} catalog of {@code CALL doris.<name>(...)} on Spark 4, through Spark's own
 * procedure API ({@code CALL} is Spark SQL there, so no parser extension is involved). Every
 * procedure it loads is answered by the Python handler. Configure it as
 * {@code spark.sql.catalog.doris=<this class>}.
 */
public final class DorisProcedureCatalog extends NamedCatalog implements ProcedureCatalog {

  @Override
  public UnboundProcedure loadProcedure(Identifier identifier) {
    ProcedureLookup lookup = ProcedureLookup.of(identifier);
    if (!lookup.found()) {
      throw new SparkProcedureException(lookup.errorType(), lookup.problem());
    }
    return new PythonProcedure(lookup);
  }

  /** Spark 4.1's listing (not in 4.0's interface, hence no {@code @Override}). */
  public Identifier[] listProcedures(String[] namespace) {
    // The names live on the Python side; CALL doris.help() lists them with their signatures.
    return new Identifier[0];
  }
}
