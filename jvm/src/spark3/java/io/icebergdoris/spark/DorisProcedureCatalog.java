package io.icebergdoris.spark;

import org.apache.spark.sql.catalyst.analysis.NoSuchProcedureException;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.iceberg.catalog.Procedure;
import org.apache.spark.sql.connector.iceberg.catalog.ProcedureCatalog;
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
    ProcedureLookup lookup = ProcedureLookup.of(identifier);
    if (!lookup.found()) {
      throw new UnknownProcedureException(identifier, lookup.problem());
    }
    return new PythonProcedure(lookup.name(), lookup.output(), lookup.description());
  }
}
