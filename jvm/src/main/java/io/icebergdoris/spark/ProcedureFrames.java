package io.icebergdoris.spark;

import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * DataFrames a Python procedure answers with (a result whose columns depend on its arguments, such
 * as {@code doris.changes}, which returns the table's columns): Python leaves the frame here under
 * an id and answers with the id; {@link ProcedureAnswers} takes it and collects its rows with
 * their own types, so no value goes through JSON.
 */
public final class ProcedureFrames {

  private ProcedureFrames() {}

  private static final Map<String, Dataset<Row>> FRAMES = new ConcurrentHashMap<>();

  /** Leaves {@code frame} for one answer; returns its id. */
  public static String put(Dataset<Row> frame) {
    String id = UUID.randomUUID().toString();
    FRAMES.put(id, frame);
    return id;
  }

  /** The frame left under {@code id} (once), or null. */
  static Dataset<Row> take(String id) {
    return FRAMES.remove(id);
  }
}
