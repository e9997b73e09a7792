package io.icebergdoris.spark;

import org.apache.spark.sql.SQLContext;
import org.apache.spark.sql.execution.streaming.Sink;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.sources.StreamSinkProvider;
import org.apache.spark.sql.streaming.OutputMode;
import scala.collection.JavaConverters;

/**
 * {@code writeStream.format("doris")} (Spark 3.5: Scala 2.12's collections; {@code src/spark4} has
 * the same class for Spark 4). Registered in {@code META-INF/services}; see {@link DorisSink}.
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
      scala.collection.Seq<String> partitionColumns,
      OutputMode outputMode) {
    return DorisSinks.create(JavaConverters.mapAsJavaMap(parameters), JavaConverters.seqAsJavaList(partitionColumns));
  }
}
