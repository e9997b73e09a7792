package io.icebergdoris.spark;

import org.apache.spark.sql.catalyst.analysis.NoSuchProcedureException;
import org.apache.spark.sql.connector.catalog.Identifier;

/** Iceberg's "procedure not found", with a message that lists the procedures that do exist. */
public final class UnknownProcedureException extends NoSuchProcedureException {

  private final String message;

  public UnknownProcedureException(Identifier identifier, String message) {
    super(identifier);
    this.message = message;
  }

  @Override
  public String getMessage() {
    return message;
  }
}
