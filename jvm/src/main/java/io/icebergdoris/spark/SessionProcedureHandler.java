package io.icebergdoris.spark;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * The Python side that {@link PythonSide} starts for a driver JVM without one (spark-sql, the
 * Thrift server, a Scala or Java job): the same calls as {@link ProcedureHandler}, each naming the
 * caller's Spark session by the id {@link CallerSessions} gave it, because that one Python process
 * serves every session of the driver (the Thrift server has one per connection).
 */
public interface SessionProcedureHandler {

  /** As {@link ProcedureHandler#describe}. */
  String describe(String procedure);

  /** As {@link ProcedureHandler#call}, in the session {@code session}. */
  String call(long session, String procedure, String argumentsJson);

  /** As {@link ProcedureHandler#statement}, in the session {@code session}. */
  String statement(long session, String statement, String procedure, String argumentsJson, String settingsJson);

  /** As {@link ProcedureHandler#streamOptions}, in the session {@code session}. */
  String streamOptions(long session, String optionsJson);

  /** As {@link ProcedureHandler#streamBatch} (the batch carries its own session). */
  String streamBatch(String optionsJson, Dataset<Row> batch, long batchId);
}
