package io.icebergdoris.spark;

import org.apache.spark.sql.catalyst.analysis.NoSuchProcedureException;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.iceberg.catalog.Procedure;
import org.apache.spark.sql.connector.iceberg.catalog.ProcedureCatalog;

/**
 * The {@code doris} catalog of {@code CALL doris.<name>(...)}: every procedure it loads is answered
 * by the Python handler. Configure it as {@code spark.sql.catalog.doris=<this class>}.
 */
public final class DorisProcedureCatalog extends NamedCatalog implements ProcedureCatalog {

  @Override
  public Procedure loadProcedure(Identifier identifier) throws NoSuchProcedureException {
    ProcedureLookup lookup = ProcedureLookup.of(identifier);
    if (!lookup.found()) {
      throw new UnknownProcedureException(identifier, lookup.problem());
    }
    return new PythonProcedure(lookup);
  }
}
