package io.icebergdoris.spark;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.plans.logical.CollectMetrics;
import org.apache.spark.sql.catalyst.plans.logical.Filter;
import org.apache.spark.sql.catalyst.plans.logical.LocalRelation;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.catalyst.plans.logical.SubqueryAlias;
import org.apache.spark.sql.execution.columnar.InMemoryRelation;
import org.apache.spark.sql.execution.datasources.LogicalRelation;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;
import scala.collection.Iterator;

/** What a frame's plan does, as far as deciding how to write it is concerned. */
public final class PlanShapes {

  private PlanShapes() {}

  /**
   * Whether computing {@code frame} is only reading rows: projections, filters and observations
   * ({@code Dataset.observe}, counted as the rows pass) over cached
   * frames already computed, local rows or tables' files. Such rows can be written by one task
   * ({@code coalesce(1)}) at the cost of reading them there; anything else (a join, an aggregate,
   * a cache not yet filled, rows from an RDD) would then run entirely in that one task too.
   */
  public static boolean onlyReads(Dataset<Row> frame) {
    return onlyReads(frame.queryExecution().withCachedData());
  }

  /**
   * How many tasks read {@code frame} when it is {@link #onlyReads only read} (its cached
   * partitions, or its files' splits), else -1. Planning it runs no job: a plan that only reads has
   * no exchange.
   */
  public static int readTasks(Dataset<Row> frame) {
    return onlyReads(frame) ? GroupCounts.rows(frame).getNumPartitions() : -1;
  }

  private static boolean onlyReads(LogicalPlan plan) {
    if (plan instanceof InMemoryRelation) {
      return ((InMemoryRelation) plan).cacheBuilder().isCachedColumnBuffersLoaded();
    }
    if (plan instanceof LocalRelation || plan instanceof LogicalRelation || plan instanceof DataSourceV2Relation) {
      return true;
    }
    if (!(plan instanceof Project || plan instanceof Filter || plan instanceof SubqueryAlias || plan instanceof CollectMetrics)) {
      return false;
    }
    Iterator<LogicalPlan> children = plan.children().iterator();
    while (children.hasNext()) {
      if (!onlyReads(children.next())) {
        return false;
      }
    }
    return true;
  }
}
