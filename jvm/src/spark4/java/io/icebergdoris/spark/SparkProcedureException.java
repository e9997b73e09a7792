package io.icebergdoris.spark;

import java.util.Map;
import org.apache.spark.SparkThrowable;

/**
 * A {@link DorisProcedureException} Spark 4 passes through as it is. Spark 4 wraps any other
 * exception a procedure catalog or procedure throws into its own {@code FAILED_TO_LOAD_ROUTINE}
 * error, whose message hides ours ("Procedure doris.x not found. Known procedures: ...").
 */
final class SparkProcedureException extends DorisProcedureException implements SparkThrowable {

  /** Spark's SQLSTATE class for a failure inside an external routine. */
  private static final String EXTERNAL_ROUTINE_EXCEPTION = "38000";

  SparkProcedureException(String errorType, String message) {
    super(errorType, message);
  }

  @Override
  public String getCondition() {
    return null; // not one of Spark's error conditions: the message is the whole story
  }

  @Override
  public String getSqlState() {
    return EXTERNAL_ROUTINE_EXCEPTION;
  }

  @Override
  public Map<String, String> getMessageParameters() {
    return Map.of();
  }
}
