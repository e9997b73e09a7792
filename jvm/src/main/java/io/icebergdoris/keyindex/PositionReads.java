package io.icebergdoris.keyindex;

import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.spark.sql.catalyst.InternalRow;

/**
 * Reading a data file's rows at given positions, for callers outside the key index (the change
 * feed reads the rows a commit deleted): the same reads a lookup's hits get, decoded from the
 * file's pages where it allows, reading only the row groups that hold a position.
 */
public final class PositionReads {

  private PositionReads() {}

  /**
   * The rows at {@code positions} (sorted, distinct, each below the file's row count) of the data
   * file at {@code location}: {@code projection}'s columns (matched by field id), then the location
   * and the position.
   */
  public static List<InternalRow> rowsAt(Table table, Schema projection, String location, long[] positions, boolean fromPages) {
    return KeyIndexRows.readAt(table, projection, new KeyIndexRows.FileRows(location, positions), fromPages, null);
  }

  /**
   * {@code value} as a row kept after its reader moves on: strings and nested values a reader
   * may reuse are copied.
   */
  public static Object kept(Object value) {
    return KeyIndexRows.copied(value);
  }
}
