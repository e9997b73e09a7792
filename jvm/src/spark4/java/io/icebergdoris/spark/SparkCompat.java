package io.icebergdoris.spark;

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
import scala.jdk.javaapi.CollectionConverters;

/**
 * The few Spark internals whose Java signatures differ between Spark lines (Spark 4, Scala 2.13:
 * the classic session and Dataset classes); {@code src/spark3} has the same class for Spark 3.5. The
 * classes of {@code src/line} convert Scala collections through it.
 */
public final class SparkCompat {

  private SparkCompat() {}

  public static Dataset<Row> ofRows(SparkSession spark, LogicalPlan plan) {
    return org.apache.spark.sql.classic.Dataset.ofRows(classic(spark), plan);
  }

  public static Dataset<Row> fromInternalRows(SparkSession spark, RDD<InternalRow> rows, StructType type) {
    return classic(spark).internalCreateDataFrame(rows, type, false);
  }

  public static SparkPlan prepareExecutedPlan(SparkSession spark, SparkPlan plan) {
    return QueryExecution.prepareExecutedPlan(classic(spark), plan);
  }

  public static LocalRelation localRelation(List<Attribute> output, List<InternalRow> rows) {
    return new LocalRelation(
        seq(output), seq(rows), false, Option.empty());
  }

  /**
   * A streaming batch's rows as a plain DataFrame over the batch's already planned RDD, as Spark's
   * ForeachBatchSink hands them over: several actions on it do not plan the streaming query again.
   */
  public static Dataset<Row> detachedBatch(Dataset<Row> batch) {
    org.apache.spark.sql.classic.Dataset<Row> classic = (org.apache.spark.sql.classic.Dataset<Row>) batch;
    LogicalRDD rows = LogicalRDD$.MODULE$.fromDataset(batch.queryExecution().toRdd(), classic, false);
    return org.apache.spark.sql.classic.Dataset.ofRows(classic(batch.sparkSession()), rows);
  }

  private static org.apache.spark.sql.classic.SparkSession classic(SparkSession spark) {
    return (org.apache.spark.sql.classic.SparkSession) spark;
  }

  /** The exception a failed procedure throws: one Spark passes through unwrapped. */
  public static DorisProcedureException procedureFailure(String errorType, String message) {
    return new SparkProcedureException(errorType, message);
  }

  /** A Scala sequence as a Java list (read only). */
  public static <T> List<T> javaList(scala.collection.Seq<T> items) {
    return CollectionConverters.asJava(items);
  }

  /** A Scala map as a Java map (read only). */
  public static <K, V> java.util.Map<K, V> javaMap(scala.collection.Map<K, V> items) {
    return CollectionConverters.asJava(items);
  }

  /** A Java list as a Scala sequence (Spark 4's {@code Seq}: {@code scala.collection.immutable.Seq}). */
  public static <T> scala.collection.immutable.Seq<T> seq(List<T> items) {
    return CollectionConverters.asScala(items).toSeq();
  }

  /** {@code child AS name}, with a new expression id. */
  public static Alias alias(Expression child, String name) {
    scala.collection.immutable.Seq<String> none = seq(List.<String>of());
    return new Alias(child, name, NamedExpression.newExprId(), none, Option.empty(), none);
  }

  public static Project project(List<NamedExpression> columns, LogicalPlan child) {
    return new Project(seq(columns), child);
  }

  /** The column {@code nameParts} (qualifier parts, then the name), unresolved. */
  public static org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute attribute(List<String> nameParts) {
    scala.collection.immutable.Seq<String> parts = seq(new java.util.ArrayList<>(nameParts));
    return new org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute(parts);
  }
}
