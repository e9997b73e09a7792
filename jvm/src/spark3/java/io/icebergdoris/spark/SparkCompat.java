package io.icebergdoris.spark;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Alias;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.plans.logical.LocalRelation;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.execution.LogicalRDD;
import org.apache.spark.sql.execution.LogicalRDD$;
import org.apache.spark.sql.execution.QueryExecution;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.types.StructType;
import scala.Option;
import scala.collection.JavaConverters;

/**
 * The few Spark internals whose Java signatures differ between Spark lines (Spark 3.5 here,
 * Scala 2.12); {@code src/spark4} has the same class for Spark 4. The classes of {@code src/line}
 * convert Scala collections through it.
 */
public final class SparkCompat {

  private SparkCompat() {}

  public static Dataset<Row> ofRows(SparkSession spark, LogicalPlan plan) {
    return Dataset.ofRows(spark, plan);
  }

  public static Dataset<Row> fromInternalRows(SparkSession spark, RDD<InternalRow> rows, StructType type) {
    return spark.internalCreateDataFrame(rows, type, false);
  }

  public static SparkPlan prepareExecutedPlan(SparkSession spark, SparkPlan plan) {
    return QueryExecution.prepareExecutedPlan(spark, plan);
  }

  /**
   * A streaming batch's rows as a plain DataFrame over the batch's already planned RDD, as Spark's
   * ForeachBatchSink hands them over: several actions on it do not plan the streaming query again.
   */
  public static Dataset<Row> detachedBatch(Dataset<Row> batch) {
    LogicalRDD rows = LogicalRDD$.MODULE$.fromDataset(batch.queryExecution().toRdd(), batch, false);
    return Dataset.ofRows(batch.sparkSession(), rows);
  }

  public static LocalRelation localRelation(List<Attribute> output, List<InternalRow> rows) {
    return new LocalRelation(
        JavaConverters.asScalaBuffer(new ArrayList<>(output)).toSeq(),
        JavaConverters.asScalaBuffer(new ArrayList<>(rows)).toSeq(),
        false);
  }

  /** The exception a failed procedure throws. */
  public static DorisProcedureException procedureFailure(String errorType, String message) {
    return new DorisProcedureException(errorType, message);
  }

  /** A Scala sequence as a Java list (read only). */
  public static <T> List<T> javaList(scala.collection.Seq<T> items) {
    return JavaConverters.seqAsJavaList(items);
  }

  /** A Scala map as a Java map (read only). */
  public static <K, V> java.util.Map<K, V> javaMap(scala.collection.Map<K, V> items) {
    return JavaConverters.mapAsJavaMap(items);
  }

  /** A Java list as a Scala sequence (Spark 3.5's {@code Seq}: {@code scala.collection.Seq}). */
  public static <T> scala.collection.Seq<T> seq(List<T> items) {
    return JavaConverters.asScalaBuffer(new ArrayList<>(items)).toSeq();
  }

  /** {@code child AS name}, with a new expression id. */
  public static Alias alias(Expression child, String name) {
    scala.collection.Seq<String> none = seq(List.of());
    return new Alias(child, name, NamedExpression.newExprId(), none, Option.empty(), none);
  }

  public static Project project(List<NamedExpression> columns, LogicalPlan child) {
    return new Project(seq(columns), child);
  }

  /** The column {@code nameParts} (qualifier parts, then the name), unresolved. */
  public static org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute attribute(List<String> nameParts) {
    scala.collection.Seq<String> parts = seq(nameParts);
    return new org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute(parts);
  }
}
