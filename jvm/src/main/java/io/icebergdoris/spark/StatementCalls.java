package io.icebergdoris.spark;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.CatalystTypeConverters;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.types.StructType;

/**
 * What a {@code DorisStatement} does when it runs, the same on every Spark line (each line has
 * its own {@code DorisStatement}: the plan node's Scala plumbing differs): the rows the statement
 * writes reach the Doris procedure as a global temporary view that lives for this call only, and
 * the procedure's result rows are the statement's.
 */
final class StatementCalls {

  /**
   * The session settings Doris's INSERT takes, by Doris's names (its session variables {@code
   * enable_insert_strict} and {@code insert_max_filter_ratio}; {@code insert_label} stands for
   * {@code INSERT ... WITH LABEL}, which Spark's grammar lacks). Read and checked on the Python
   * side ({@code iceberg_doris/procedures/statements.py}).
   */
  static final String ENABLE_INSERT_STRICT = "spark.doris.enable_insert_strict";
  static final String INSERT_MAX_FILTER_RATIO = "spark.doris.insert_max_filter_ratio";
  static final String INSERT_LABEL = "spark.doris.insert_label";
  /** Doris's session variables making an INSERT a partial-column update of a UNIQUE / AGGREGATE KEY table. */
  static final String UNIQUE_KEY_PARTIAL_UPDATE = "spark.doris.enable_unique_key_partial_update";
  static final String AGG_KEY_PARTIAL_UPDATE = "spark.doris.enable_agg_key_partial_update";

  /**
   * The argument naming a MERGE INTO's {@link MergeRows} for the Python side, which takes it out
   * before the load's arguments are bound (``iceberg_doris/procedures/statements.py``).
   */
  static final String MERGE_ROWS = "__merge_rows";

  private StatementCalls() {}

  /** The output columns of {@code procedure} (its declared result). */
  static StructType output(String procedure) {
    return ProcedureLookup.of(org.apache.spark.sql.connector.catalog.Identifier.of(new String[0], procedure)).output();
  }

  /** Runs {@code procedure} for {@code statement} on {@code target}; {@code rows}: null when it reads none. */
  static List<Row> run(
      SparkSession session, String statement, String procedure, DorisTarget target, LogicalPlan rows,
      ObjectNode arguments, StructType schema, MergeRows merge) {
    ObjectNode call = arguments.deepCopy();
    call.put("table", target.name());
    String view = null;
    if (rows != null) {
      view = "doris_statement_" + UUID.randomUUID().toString().replace("-", "");
      Dataset<Row> frame = SparkCompat.ofRows(session, rows);
      frame.createOrReplaceGlobalTempView(view);
      String database = session.conf().get("spark.sql.globalTempDatabase", "global_temp");
      String qualified = quote(database) + "." + quote(view);
      if ("insert_overwrite".equals(procedure)) {
        call.put("query", "SELECT * FROM " + qualified);
      } else {
        call.put("source", qualified);
      }
    }
    ObjectNode settings = call.objectNode();
    for (String key : new String[] {
        ENABLE_INSERT_STRICT, INSERT_MAX_FILTER_RATIO, INSERT_LABEL, UNIQUE_KEY_PARTIAL_UPDATE, AGG_KEY_PARTIAL_UPDATE}) {
      String value = session.conf().get(key, null);
      if (value != null) {
        settings.put(key, value);
      }
    }
    if (statement.startsWith("INSERT") && settings.has(INSERT_LABEL)) {
      // A label names one statement (Doris: INSERT ... WITH LABEL): the next INSERT gets its own.
      session.conf().unset(INSERT_LABEL);
    }
    String mergeToken = merge != null ? merge.register() : null;
    if (mergeToken != null) {
      call.put(MERGE_ROWS, mergeToken);
    }
    try {
      InternalRow[] answer = ProcedureAnswers.statement(statement, procedure, call.toString(), settings.toString(), schema);
      List<Row> result = new ArrayList<>();
      for (InternalRow row : answer) {
        result.add((Row) CatalystTypeConverters.convertToScala(row, schema));
      }
      return result;
    } finally {
      if (mergeToken != null) {
        MergeRows.forget(mergeToken);
      }
      if (view != null) {
        session.catalog().dropGlobalTempView(view);
      }
    }
  }

  /** What EXPLAIN shows: the statement, the Doris operation, the table and its model. */
  static String describe(String statement, String procedure, DorisTarget target, ObjectNode arguments) {
    return "DorisStatement " + statement + " as doris." + procedure + " " + target.name() + " (" + target.model()
        + " KEY)" + (arguments.isEmpty() ? "" : " " + arguments);
  }

  private static String quote(String name) {
    return "`" + name.replace("`", "``") + "`";
  }
}
