package io.icebergdoris.keyindex;

import java.io.Serializable;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.iceberg.Table;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/** Keys of one batch, sorted, with whether each one is a delete and its sequence value; built on the driver. */
public final class BatchKeys implements Serializable {
  private static final long serialVersionUID = 2L;
  final long[] longs; // the fast path; else null
  // Encoded keys, else null: packed to be broadcast (see PackedBytes), unpacked once per
  // executor on first use (volatile: the probe tasks of one executor share the broadcast value).
  private transient volatile byte[][] bytes;
  private final PackedBytes packed;
  final int[] deletes;
  final long[] sequences; // null unless the table has a sequence column
  final boolean[] nullSequences;
  // Driver only, to hand keys back to Spark as values: the collected rows (sorted like the
  // keys), or the reader that turns a key back into its values.
  final transient List<Row> rows;
  final transient BatchKeyReader reader;
  final transient StructType keyType;

  BatchKeys(long[] longs, byte[][] bytes, int[] deletes, long[] sequences, boolean[] nullSequences, List<Row> rows,
      BatchKeyReader reader, StructType keyType) {
    this.longs = longs;
    this.bytes = bytes;
    this.packed = bytes != null ? PackedBytes.of(bytes, bytes.length) : null;
    this.deletes = deletes;
    this.sequences = sequences;
    this.nullSequences = nullSequences;
    this.rows = rows;
    this.reader = reader;
    this.keyType = keyType;
  }

  /** The key values of the {@code i}-th key (in key order), as Spark values. */
  Row keyRow(int i) {
    if (rows != null) {
      return rows.get(i);
    }
    return longs != null ? reader.keyRow(longs[i]) : reader.keyRow(bytes()[i]);
  }

  /** The encoded keys in key order (null on the fast path). */
  byte[][] bytes() {
    byte[][] keys = bytes;
    if (keys == null && packed != null) {
      synchronized (this) {
        keys = bytes;
        if (keys == null) {
          keys = packed.unpack();
          bytes = keys;
        }
      }
    }
    return keys;
  }

  public int count() {
    return deletes.length;
  }

  /** Whether some key occurs more than once (the batch was collected before de-duplication). */
  public boolean hasDuplicates() {
    for (int i = 1; i < count(); i++) {
      if (compare(i - 1, i) == 0) {
        return true;
      }
    }
    return false;
  }

  int compare(int a, int b) {
    return longs != null ? Long.compare(longs[a], longs[b]) : Arrays.compareUnsigned(bytes()[a], bytes()[b]);
  }

  /**
   * The first key column's values, in key order (repeats possible), for the file-pruning filter,
   * as the wire carries them (see {@link KeyIndex#describeBatch}): numbers, strings and booleans as
   * they are, decimals as {"decimal": "text"}, dates and timestamps as ISO text.
   */
  List<Object> firstColumnValues() {
    List<Object> values = new ArrayList<>(count());
    for (int i = 0; i < count(); i++) {
      values.add(pythonValue(keyRow(i).get(0)));
    }
    return values;
  }

  /** The first key column's smallest and largest value (keys sort by their first column first), as {@link #firstColumnValues}; empty for no keys. */
  List<Object> firstColumnRange() {
    List<Object> range = new ArrayList<>();
    if (count() > 0) {
      range.add(pythonValue(keyRow(0).get(0)));
      range.add(pythonValue(keyRow(count() - 1).get(0)));
    }
    return range;
  }

  private static Object pythonValue(Object value) {
    if (value instanceof BigDecimal) {
      return java.util.Collections.singletonMap("decimal", ((BigDecimal) value).toPlainString());
    }
    if (value instanceof Number || value instanceof String || value instanceof Boolean) {
      return value;
    }
    return String.valueOf(value);
  }

  /**
   * Collects the batch's keys (its first {@code n} columns, the request's key columns, in that
   * order), delete flags (column n, boolean) and, when the request names a sequence column, sequence values (column n+1, the sequence column's type) into
   * the driver JVM, sorted by key. A probe needs one row per key: a caller that collects rows not
   * yet de-duplicated checks {@link BatchKeys#hasDuplicates()}. Rows with a NULL key match no
   * stored row (as in the scan's join) and are left out.
   */
  static BatchKeys collect(Dataset<Row> batch, Table table, IndexRequest request) {
    Layout layout = Layout.of(table, request, false);
    KeyCodec codec = layout.codec;
    StructType keyType = new StructType(Arrays.copyOf(batch.schema().fields(), codec.columns()));
    BatchKeyReader reader = BatchKeyReader.of(codec, batch.schema(), layout.sequence != null);
    if (reader == null) {
      return fromRows(batch, layout, keyType);
    }
    List<BatchKeyReader.Chunk> chunks =
        batch.queryExecution().toRdd().toJavaRDD().mapPartitions(new BatchKeyReader.PerPartition(reader)).collect();
    return assemble(layout, reader, keyType, chunks);
  }

  /**
   * The reader of {@link #collect}'s columns (the keys, the delete flag, the sequence value),
   * for a pass over rows that collects the keys on its way ({@code io.icebergdoris.spark.GroupCounts});
   * null when a column's type needs {@link #collect} itself. {@code keysSchema}: those columns.
   */
  static BatchKeyReader reader(Table table, StructType keysSchema, IndexRequest request) {
    Layout layout = Layout.of(table, request, false);
    return BatchKeyReader.of(layout.codec, keysSchema, layout.sequence != null);
  }

  /** What {@link #collect} returns, from the chunks a pass read with {@link #reader}. */
  static BatchKeys fromChunks(
      Table table, StructType keysSchema, IndexRequest request, BatchKeyReader reader, List<BatchKeyReader.Chunk> chunks) {
    Layout layout = Layout.of(table, request, false);
    // Named as the table's key columns whatever the pass called them (losing keys join by name).
    List<String> names = request.keyColumns();
    StructField[] fields = new StructField[layout.codec.columns()];
    for (int i = 0; i < fields.length; i++) {
      StructField field = keysSchema.fields()[i];
      fields[i] = new StructField(names.get(i), field.dataType(), field.nullable(), field.metadata());
    }
    return assemble(layout, reader, new StructType(fields), chunks);
  }

  private static BatchKeys assemble(Layout layout, BatchKeyReader reader, StructType keyType, List<BatchKeyReader.Chunk> chunks) {
    KeyCodec codec = layout.codec;
    int count = 0;
    for (BatchKeyReader.Chunk chunk : chunks) {
      count += chunk.count;
    }
    boolean fast = codec.singleLong();
    long[] longs = fast ? new long[count] : null;
    byte[][] bytes = fast ? null : new byte[count][];
    boolean[] deleteFlags = new boolean[count];
    long[] sequenceValues = layout.sequence != null ? new long[count] : null;
    boolean[] nullSequenceValues = layout.sequence != null ? new boolean[count] : null;
    int[] runs = new int[chunks.size() + 1]; // encoded keys: each chunk is a sorted run to merge
    int at = 0;
    int run = 0;
    for (BatchKeyReader.Chunk chunk : chunks) {
      runs[run++] = at;
      if (fast) {
        System.arraycopy(chunk.longs, 0, longs, at, chunk.count);
      } else {
        System.arraycopy(chunk.encodedKeys(), 0, bytes, at, chunk.count);
      }
      System.arraycopy(chunk.deletes, 0, deleteFlags, at, chunk.count);
      if (sequenceValues != null) {
        System.arraycopy(chunk.sequences, 0, sequenceValues, at, chunk.count);
        System.arraycopy(chunk.nullSequences, 0, nullSequenceValues, at, chunk.count);
      }
      at += chunk.count;
    }
    runs[run] = count;
    int[] order = fast ? Sorting.sortedOrder(longs, null, count) : Sorting.mergedOrder(bytes, runs);
    long[] sortedLongs = fast ? new long[count] : null;
    byte[][] sortedBytes = fast ? null : new byte[count][];
    int[] deletes = new int[count];
    long[] sequences = sequenceValues != null ? new long[count] : null;
    boolean[] nullSequences = sequenceValues != null ? new boolean[count] : null;
    for (int i = 0; i < count; i++) {
      int from = order[i];
      if (fast) {
        sortedLongs[i] = longs[from];
      } else {
        sortedBytes[i] = bytes[from];
      }
      deletes[i] = deleteFlags[from] ? 1 : 0;
      if (sequences != null) {
        sequences[i] = sequenceValues[from];
        nullSequences[i] = nullSequenceValues[from];
      }
    }
    return new BatchKeys(sortedLongs, sortedBytes, deletes, sequences, nullSequences, null, reader, keyType);
  }

  /** {@link #collect} for key columns of Spark types {@link BatchKeyReader} does not read: the rows are collected. */
  private static BatchKeys fromRows(Dataset<Row> batch, Layout layout, StructType keyType) {
    KeyCodec codec = layout.codec;
    int n = codec.columns();
    List<Row> collected = batch.collectAsList();
    List<Row> rows = new ArrayList<>(collected.size());
    for (Row row : collected) {
      if (!codec.anyNull(row, 0)) {
        rows.add(row);
      }
    }
    int count = rows.size();
    boolean fast = codec.singleLong();
    long[] longs = fast ? new long[count] : null;
    byte[][] bytes = fast ? null : new byte[count][];
    for (int i = 0; i < count; i++) {
      if (fast) {
        longs[i] = codec.externalLong(rows.get(i).get(0));
      } else {
        bytes[i] = codec.encode(rows.get(i), 0);
      }
    }
    int[] order = Sorting.sortedOrder(longs, bytes, count);
    long[] sortedLongs = fast ? new long[count] : null;
    byte[][] sortedBytes = fast ? null : new byte[count][];
    int[] deletes = new int[count];
    long[] sequences = layout.sequence != null ? new long[count] : null;
    boolean[] nullSequences = layout.sequence != null ? new boolean[count] : null;
    List<Row> sortedRows = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      Row row = rows.get(order[i]);
      if (fast) {
        sortedLongs[i] = longs[order[i]];
      } else {
        sortedBytes[i] = bytes[order[i]];
      }
      deletes[i] = !row.isNullAt(n) && row.getBoolean(n) ? 1 : 0;
      if (sequences != null) {
        if (row.isNullAt(n + 1)) {
          nullSequences[i] = true;
        } else {
          sequences[i] = codec.externalLong(row.get(n + 1));
        }
      }
      Object[] keyValues = new Object[n];
      for (int c = 0; c < n; c++) {
        keyValues[c] = row.get(c);
      }
      sortedRows.add(RowFactory.create(keyValues));
    }
    return new BatchKeys(sortedLongs, sortedBytes, deletes, sequences, nullSequences, sortedRows, null, keyType);
  }
}
