package io.icebergdoris.spark;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.plans.Inner$;
import org.apache.spark.sql.catalyst.plans.JoinType;
import org.apache.spark.sql.catalyst.plans.LeftAnti$;
import org.apache.spark.sql.catalyst.plans.LeftOuter$;
import org.apache.spark.sql.catalyst.plans.LeftSemi$;
import org.apache.spark.sql.catalyst.plans.logical.BROADCAST$;
import org.apache.spark.sql.catalyst.plans.logical.CollectMetrics;
import org.apache.spark.sql.catalyst.plans.logical.Filter;
import org.apache.spark.sql.catalyst.plans.logical.HintInfo;
import org.apache.spark.sql.catalyst.plans.logical.Join;
import org.apache.spark.sql.catalyst.plans.logical.LocalRelation;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.OneRowRelation;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.catalyst.plans.logical.Range;
import org.apache.spark.sql.catalyst.plans.logical.ResolvedHint;
import org.apache.spark.sql.catalyst.plans.logical.SubqueryAlias;
import org.apache.spark.sql.execution.FileSourceScanExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;
import org.apache.spark.sql.execution.columnar.InMemoryRelation;
import org.apache.spark.sql.execution.datasources.HadoopFsRelation;
import org.apache.spark.sql.execution.datasources.LogicalRelation;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;
import scala.collection.Iterator;

/** What a frame's plan does, as far as deciding how to write it is concerned. */
public final class PlanShapes {

  private PlanShapes() {}

  /**
   * Whether computing {@code frame} is only reading rows: projections, filters and observations
   * ({@code Dataset.observe}, counted as the rows pass) over cached
   * frames already computed, local rows, generated rows ({@code range}, a query without
   * {@code FROM}) or tables' files, and joins of such rows with a side
   * hinted to be broadcast (built in a job of its own, then only probed as the rows pass). Such
   * rows can be written by one task ({@code coalesce(1)}) at the cost of reading them there;
   * anything else (a shuffled join, an aggregate, a cache not yet filled, rows from an RDD) would
   * then run entirely in that one task too.
   */
  public static boolean onlyReads(Dataset<Row> frame) {
    return onlyReads(frame, false);
  }

  /**
   * {@link #onlyReads(Dataset)}, counting a cache not yet filled as filled when
   * {@code cachedMeanwhile}: a job running meanwhile computes every cached partition (a load
   * counting its rows), and a task reading one waits for that job to store it rather than
   * computing it again.
   */
  public static boolean onlyReads(Dataset<Row> frame, boolean cachedMeanwhile) {
    return onlyReads(frame.queryExecution().withCachedData(), cachedMeanwhile);
  }

  /**
   * How many tasks read {@code frame} when it is {@link #onlyReads only read} (its cached
   * partitions, or its files' splits), else -1. Planning it runs no job: a plan that only reads has
   * no exchange, and a broadcast join's tasks are its streamed side's, counted there (executing
   * the join's plan would build the broadcast, in a job, just to count them).
   */
  public static int readTasks(Dataset<Row> frame) {
    return readTasks(frame, false);
  }

  /** {@link #readTasks(Dataset)}, a cache not yet filled counted as {@link #onlyReads(Dataset, boolean)} does. */
  public static int readTasks(Dataset<Row> frame, boolean cachedMeanwhile) {
    if (!onlyReads(frame, cachedMeanwhile)) {
      return -1;
    }
    LogicalPlan plan = frame.queryExecution().withCachedData();
    LogicalPlan streamed = streamedSide(plan);
    Dataset<Row> read = streamed == plan ? frame : SparkCompat.ofRows(frame.sparkSession(), streamed);
    return GroupCounts.rows(read).getNumPartitions();
  }

  /**
   * Whether Spark sizes {@code frame} by the bytes of files it reads (a Parquet or CSV source, read
   * directly or through a cache not yet filled, which Spark sizes by the plan it caches). Those are
   * compressed bytes: a Parquet batch of 1.1M rows is 16 MB of files and about 50 MB of rows, so
   * a size limit meant for rows must scale them. Iceberg tables are sized by their rows, and a
   * filled cache by what it holds.
   */
  public static boolean sizedByFiles(Dataset<Row> frame) {
    return sizedByFiles(frame.queryExecution().withCachedData());
  }

  private static boolean sizedByFiles(LogicalPlan plan) {
    if (plan instanceof LogicalRelation) {
      return ((LogicalRelation) plan).relation() instanceof HadoopFsRelation;
    }
    if (plan instanceof InMemoryRelation) {
      InMemoryRelation cached = (InMemoryRelation) plan;
      return !cached.cacheBuilder().isCachedColumnBuffersLoaded() && scansFiles(cached.cacheBuilder().cachedPlan());
    }
    Iterator<LogicalPlan> children = plan.children().iterator();
    while (children.hasNext()) {
      if (sizedByFiles(children.next())) {
        return true;
      }
    }
    return false;
  }

  private static boolean scansFiles(SparkPlan plan) {
    if (plan instanceof FileSourceScanExec) {
      return true;
    }
    if (plan instanceof AdaptiveSparkPlanExec) {
      return scansFiles(((AdaptiveSparkPlanExec) plan).inputPlan());
    }
    Iterator<SparkPlan> children = plan.children().iterator();
    while (children.hasNext()) {
      if (scansFiles(children.next())) {
        return true;
      }
    }
    return false;
  }

  /** The rows an only-read plan's tasks read: below its joins, their left (streamed) side; the plan itself without joins. */
  private static LogicalPlan streamedSide(LogicalPlan plan) {
    if (plan instanceof Join) {
      return streamedSide(((Join) plan).left());
    }
    if (plan.children().size() == 1) {
      LogicalPlan child = plan.children().head();
      LogicalPlan below = streamedSide(child);
      return below == child ? plan : below;
    }
    return plan;
  }

  private static boolean onlyReads(LogicalPlan plan, boolean cachedMeanwhile) {
    if (plan instanceof InMemoryRelation) {
      return cachedMeanwhile || ((InMemoryRelation) plan).cacheBuilder().isCachedColumnBuffersLoaded();
    }
    if (plan instanceof LocalRelation || plan instanceof LogicalRelation || plan instanceof DataSourceV2Relation) {
      return true;
    }
    // Rows Spark generates as it reads them (SELECT ... FROM range(n), a query without FROM): one
    // task makes them as cheaply as several; shuffling them to one writer cost a job of its own.
    if (plan instanceof Range || plan instanceof OneRowRelation) {
      return true;
    }
    if (plan instanceof Join) {
      Join join = (Join) plan;
      return streamsLeft(join.joinType()) && broadcastHinted(join) && onlyReads(join.left(), cachedMeanwhile);
    }
    if (!(plan instanceof Project || plan instanceof Filter || plan instanceof SubqueryAlias || plan instanceof CollectMetrics)) {
      return false;
    }
    Iterator<LogicalPlan> children = plan.children().iterator();
    while (children.hasNext()) {
      if (!onlyReads(children.next(), cachedMeanwhile)) {
        return false;
      }
    }
    return true;
  }

  /** Join types Spark can build from the right side, streaming the left one through the hash table. */
  private static boolean streamsLeft(JoinType type) {
    return type == Inner$.MODULE$ || type == LeftOuter$.MODULE$ || type == LeftSemi$.MODULE$ || type == LeftAnti$.MODULE$;
  }

  /** Whether the join's right side carries a broadcast hint (as analysed, or already merged into the join). */
  private static boolean broadcastHinted(Join join) {
    LogicalPlan right = join.right();
    while (right instanceof SubqueryAlias) {
      right = ((SubqueryAlias) right).child();
    }
    if (right instanceof ResolvedHint && isBroadcast(((ResolvedHint) right).hints())) {
      return true;
    }
    return join.hint().rightHint().isDefined() && isBroadcast(join.hint().rightHint().get());
  }

  private static boolean isBroadcast(HintInfo hint) {
    return hint.strategy().isDefined() && hint.strategy().get() == BROADCAST$.MODULE$;
  }
}
