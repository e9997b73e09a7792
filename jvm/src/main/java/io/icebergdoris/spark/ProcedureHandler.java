package io.icebergdoris.spark;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * The Python side of the bridge: iceberg_doris registers one implementation per driver JVM
 * (through py4j), and every {@code CALL doris.*} is answered by it. Messages are JSON strings so the
 * contract stays small and language-neutral.
 */
public interface ProcedureHandler {

  /**
   * Describes a procedure: {@code {"output": "<spark DDL schema>", "description": "..."}} when it
   * exists, {@code {"unknown": "<message listing the known procedures>"}} when it does not.
   */
  String describe(String procedure);

  /**
   * Runs a procedure on its JSON argument object (named keys, or {@code "#<index>"} for positional
   * arguments). Answers {@code {"rows": [[...], ...]}} or {@code {"error": {"type": ..., "message": ...}}}.
   */
  String call(String procedure, String argumentsJson);

  /**
   * Runs {@code procedure} for a Spark statement on a Doris table ({@code statement}: "INSERT INTO",
   * "UPDATE", ...; see {@code DorisStatementRule}) with the settings Doris's statements take, from
   * the statement's session ({@code settingsJson}: {"spark.doris.enable_insert_strict": "false", ...},
   * the keys that are set). Answers as {@link #call}.
   */
  String statement(String statement, String procedure, String argumentsJson, String settingsJson);

  /**
   * Checks the options of a {@code format("doris")} streaming sink ({@code optionsJson}: the
   * writer's options, {"table": "db.t", ...}) when its query starts. Answers {@code {"table":
   * "db.t"}} or {@code {"error": ...}} naming the bad option and the valid ones.
   */
  String streamOptions(String optionsJson);

  /**
   * Loads micro-batch {@code batchId} ({@code batch}, safe for several actions) of a {@code
   * format("doris")} sink with its options, as {@code doris.stream_to} loads a batch. Answers
   * {@code {"metrics": {"loaded_rows": "3", "skipped": "false", ...}}} or {@code {"error": ...}}.
   */
  String streamBatch(String optionsJson, Dataset<Row> batch, long batchId);
}
