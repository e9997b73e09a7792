package io.icebergdoris.spark;

import org.apache.spark.sql.SQLContext;
import org.apache.spark.sql.execution.streaming.Sink;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.sources.StreamSinkProvider;
import org.apache.spark.sql.streaming.OutputMode;

/**
 * {@code writeStream.format("doris")}, on every Spark line (the partition columns' type is the
 * line's Scala {@code Seq}). Registered in {@code META-INF/services}; see {@link DorisSink}.
 */
public final class DorisSinkProvider implements StreamSinkProvider, DataSourceRegister {

  @Override
  public String shortName() {
    return "doris";
  }

  @Override
  public Sink createSink(
      SQLContext sqlContext,
      scala.collection.immutable.Map<String, String> parameters,
      ${scala.seq}<String> partitionColumns,
      OutputMode outputMode) {
    return DorisSinks.create(SparkCompat.javaMap(parameters), SparkCompat.javaList(partitionColumns));
  }
}
