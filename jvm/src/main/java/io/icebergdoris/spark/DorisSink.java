package io.icebergdoris.spark;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.connector.read.streaming.ReportsSinkMetrics;
import org.apache.spark.sql.execution.streaming.Sink;

/**
 * The {@code format("doris")} streaming sink: each micro-batch goes to the Python side, which loads
 * it exactly as {@code doris.stream_to} does (same labels, same exactly-once guard, same errors),
 * and answers with the batch's counts. They are this sink's {@link #metrics()}, which Spark's
 * progress reporter puts in {@code StreamingQueryProgress.sink.metrics} of the batch (it asks every
 * sink that implements {@link ReportsSinkMetrics}, V1 sinks included: {@code Sink} is a {@code
 * Table}).
 */
public final class DorisSink implements Sink, ReportsSinkMetrics {

  static final String WHAT = "format(\"doris\")";

  private final String table;
  private final String optionsJson;
  // Written by addBatch and read by the progress reporter right after it, on the query's thread;
  // volatile for anyone else reading the sink.
  private volatile Map<String, String> lastBatch = Map.of();

  DorisSink(String table, String optionsJson) {
    this.table = table;
    this.optionsJson = optionsJson;
  }

  @Override
  public void addBatch(long batchId, Dataset<Row> data) {
    // As Spark's ForeachBatchSink: the load runs several actions on the batch (counts, lookups,
    // the write), each of which must not plan the streaming query again.
    Dataset<Row> batch = SparkCompat.detachedBatch(data);
    JsonNode answer = Json.parse(ProcedureHandlers.current(WHAT).streamBatch(optionsJson, batch, batchId));
    DorisSinks.failIfError(answer);
    Map<String, String> metrics = new LinkedHashMap<>();
    Iterator<Map.Entry<String, JsonNode>> fields = answer.path("metrics").fields();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> field = fields.next();
      if (!field.getValue().isNull()) {
        metrics.put(field.getKey(), field.getValue().asText());
      }
    }
    lastBatch = Collections.unmodifiableMap(metrics);
  }

  /** The last batch's counts: {@code loaded_rows}, {@code filtered_rows}, ..., {@code skipped}. */
  @Override
  public Map<String, String> metrics() {
    return lastBatch;
  }

  /** The sink's description in the query's progress ({@code SinkProgress.description}). */
  @Override
  public String toString() {
    return "DorisSink[" + table + "]";
  }
}
