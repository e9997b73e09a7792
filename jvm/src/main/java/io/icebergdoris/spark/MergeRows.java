package io.icebergdoris.spark;

import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.SubqueryAlias;

/**
 * The rows of a {@code MERGE INTO} whose {@code ON} equates the table's unique key with source
 * values (see {@link MergeStatement}), joined to any given stored rows instead of the whole table:
 * the Python side runs the statement's load, finds the stored rows of the source's keys through
 * the key index while it holds the table's lock, and asks here for the rows joined to those. A row
 * of the table matching {@code ON} has one of the source's keys, so the join gives the same rows.
 *
 * <p>Registered under a token for the one call that runs the statement ({@link StatementCalls}).
 */
public final class MergeRows {

  private static final Map<String, MergeRows> RUNNING = new ConcurrentHashMap<>();

  private final SparkSession session;
  private final LogicalPlan sourceKeys;
  private final SubqueryAlias target;
  private final Function<LogicalPlan, LogicalPlan> joinedTo;

  /**
   * {@code sourceKeys}: the source's key values, one column per key column, named as the table's;
   * {@code target}: the table as the statement names it, resolved; {@code joinedTo}: the
   * statement's rows with the table's side of the join replaced by the plan given.
   */
  MergeRows(SparkSession session, LogicalPlan sourceKeys, SubqueryAlias target, Function<LogicalPlan, LogicalPlan> joinedTo) {
    this.session = session;
    this.sourceKeys = sourceKeys;
    this.target = target;
    this.joinedTo = joinedTo;
  }

  String register() {
    String token = UUID.randomUUID().toString();
    RUNNING.put(token, this);
    return token;
  }

  static void forget(String token) {
    RUNNING.remove(token);
  }

  /** The key values of the running statement {@code token}'s source (one row per source row). */
  public static Dataset<Row> sourceKeys(String token) {
    MergeRows rows = running(token);
    return SparkCompat.ofRows(rows.session, rows.sourceKeys);
  }

  /**
   * The running statement {@code token}'s rows, its source joined to {@code stored} (rows with the
   * table's columns) under the name the statement gives the table.
   */
  public static Dataset<Row> rows(String token, Dataset<Row> stored) {
    MergeRows rows = running(token);
    LogicalPlan named = new SubqueryAlias(rows.target.identifier(), stored.queryExecution().analyzed());
    return SparkCompat.ofRows(rows.session, rows.joinedTo.apply(named));
  }

  private static MergeRows running(String token) {
    MergeRows rows = RUNNING.get(token);
    if (rows == null) {
      throw new IllegalStateException("MERGE INTO: no running statement " + token + " (it has finished)");
    }
    return rows;
  }
}
