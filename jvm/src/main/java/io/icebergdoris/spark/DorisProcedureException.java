package io.icebergdoris.spark;

/**
 * An iceberg-doris procedure failed; the message is the Python side's, meant for the user.
 *
 * <p>It extends IllegalArgumentException because PySpark turns that into a Python exception that
 * shows just this message, where an unrecognised JVM exception would surface as a raw Java stack
 * trace.
 */
public class DorisProcedureException extends IllegalArgumentException {

  private final String errorType;

  public DorisProcedureException(String message) {
    this("DorisError", message);
  }

  public DorisProcedureException(String errorType, String message) {
    super(message);
    this.errorType = errorType;
  }

  /** The name of the Python exception class that raised it, e.g. {@code PartitionNotFoundError}. */
  public String errorType() {
    return errorType;
  }
}
