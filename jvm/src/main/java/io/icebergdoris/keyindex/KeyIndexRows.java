package io.icebergdoris.keyindex;

import io.icebergdoris.iceberg.NameMappings;
import io.icebergdoris.keyindex.pages.DirectZstd;
import io.icebergdoris.spark.SparkCompat;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SerializableTable;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.mapping.NameMapping;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.iceberg.spark.SparkSchemaUtil;
import org.apache.iceberg.spark.data.SparkParquetReaders;
import org.apache.iceberg.spark.data.vectorized.VectorizedSparkParquetReaders;
import org.apache.iceberg.types.Types;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.storage.StorageLevel;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The stored rows a key-index lookup found, read by position: for loads that merge the batch with
 * the live rows (aggregate keys, partial-column updates, sequence tables whose decision needs
 * stored values), the columns they need of exactly the hit rows, instead of scanning every
 * candidate file's rows and joining them with the batch.
 *
 * <p>One Spark task per hit data file (or group of files) reads the file through the table's
 * FileIO with the table's current schema, matched by Iceberg field id (files written before a
 * rename hold old names; a column added since reads as NULL or its initial default, as a scan
 * gives it), reads only the row groups that hold a hit position, and keeps the rows at the hit
 * positions. The values are decoded from the file's pages ({@link HitValues}) when its columns
 * and encodings allow, else read through Iceberg's vectorized or row reader. The key columns are
 * not read where the probe kept the batch key each hit matched (always, for the loads that read by
 * position): they are that key's values, decoded from its encoding ({@link KeyCodec}); a load that
 * needs nothing else of the stored rows opens no data file. The rows stay on the
 * executors (persisted until {@link Read#release}); the read runs when it is made, so a failure
 * shows there and the load can scan instead.
 */
public final class KeyIndexRows {
  private KeyIndexRows() {}

  /**
   * One data file's hit positions (sorted, live in the looked-up snapshot) and, when the probe kept
   * them, the batch key each position matched (fast-path longs or encoded keys, in position order):
   * a stored row's key equals the key it matched, so its key columns are not read.
   */
  static final class FileRows implements Serializable {
    private static final long serialVersionUID = 2L;
    final String location;
    final long[] positions;
    private final long[] longKeys;
    private final PackedBytes encodedKeys;

    FileRows(String location, long[] positions) {
      this(location, positions, null, null);
    }

    FileRows(String location, long[] positions, long[] longKeys, PackedBytes encodedKeys) {
      this.location = location;
      this.positions = positions;
      this.longKeys = longKeys;
      this.encodedKeys = encodedKeys;
    }

    boolean keysKnown() {
      return longKeys != null || encodedKeys != null;
    }

    /** Per position, the key columns' internal values. */
    Object[][] keyValues(KeyCodec codec) {
      Object[][] values = new Object[positions.length][];
      byte[][] encoded = encodedKeys != null ? encodedKeys.unpack() : null;
      for (int i = 0; i < values.length; i++) {
        values[i] = encoded != null ? codec.internalValues(encoded[i]) : codec.internalValues(longKeys[i]);
      }
      return values;
    }
  }

  /**
   * One file's rows read, as Spark's binary rows packed into one array: persisted, a file's rows
   * are one object to the block manager, whose size it estimates at a glance; as separate rows it
   * sampled their object graphs as they were stored, a sixth of the executors' time in an
   * aggregate load at 10M rows (100k hits).
   */
  static final class PackedRows implements Serializable {
    private static final long serialVersionUID = 1L;
    final byte[] bytes;
    final int[] ends; // where each row's bytes end

    PackedRows(byte[] bytes, int[] ends) {
      this.bytes = bytes;
      this.ends = ends;
    }

    static PackedRows of(List<InternalRow> rows, StructType type) {
      UnsafeProjection binary = UnsafeProjection.create(type);
      java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(Math.max(32, rows.size() * 48));
      int[] ends = new int[rows.size()];
      for (int i = 0; i < ends.length; i++) {
        UnsafeRow row = binary.apply(rows.get(i));
        out.write(row.getBytes(), 0, row.getSizeInBytes());
        ends[i] = out.size();
      }
      return new PackedRows(out.toByteArray(), ends);
    }
  }

  private static final class RowCount implements org.apache.spark.api.java.function.Function<PackedRows, Integer> {
    private static final long serialVersionUID = 1L;

    @Override
    public Integer call(PackedRows rows) {
      return rows.ends.length;
    }
  }

  /** The packed rows as rows again (each a view of the packed bytes, which are never changed). */
  private static final class Unpacked implements FlatMapFunction<PackedRows, InternalRow> {
    private static final long serialVersionUID = 1L;
    private final int fields;

    Unpacked(int fields) {
      this.fields = fields;
    }

    @Override
    public Iterator<InternalRow> call(PackedRows rows) {
      return new Iterator<InternalRow>() {
        private int next = 0;

        @Override
        public boolean hasNext() {
          return next < rows.ends.length;
        }

        @Override
        public InternalRow next() {
          int start = next == 0 ? 0 : rows.ends[next - 1];
          UnsafeRow row = new UnsafeRow(fields);
          row.pointTo(rows.bytes, Platform.BYTE_ARRAY_OFFSET + start, rows.ends[next] - start);
          next++;
          return row;
        }
      };
    }
  }

  /** The rows read, as a DataFrame: the projected columns, then {@code _file} and {@code _pos}. */
  public static final class Read {
    private final Dataset<Row> frame;
    private final JavaRDD<PackedRows> rows;
    private final Broadcast<Table> table;
    private final long count;

    Read(Dataset<Row> frame, JavaRDD<PackedRows> rows, Broadcast<Table> table, long count) {
      this.frame = frame;
      this.rows = rows;
      this.table = table;
      this.count = count;
    }

    public Dataset<Row> frame() {
      return frame;
    }

    /** Rows read (one per hit position). */
    public long count() {
      return count;
    }

    /** Drops the persisted rows; the frame is unusable afterwards. */
    public void release() {
      rows.unpersist(false);
      table.destroy();
    }
  }

  /**
   * Reads the columns {@code columns} (current names;
   * the key columns of {@code codec} first) of the rows at {@code files}' positions, one task per
   * file or group of files, and waits for them. The key columns of a file whose keys are known are
   * decoded from them, not read.
   */
  static Read read(SparkSession spark, Table table, List<FileRows> files, List<String> columns, KeyCodec codec) {
    List<Types.NestedField> fields = new ArrayList<>();
    for (String name : columns) {
      Types.NestedField field = table.schema().findField(name);
      if (field == null) {
        throw new IllegalArgumentException("no column " + name + " in " + table.name());
      }
      fields.add(field);
    }
    Schema projection = new Schema(fields);
    Schema values = new Schema(fields.subList(codec.columns(), fields.size()));
    StructType type = new StructType();
    for (StructField field : SparkSchemaUtil.convert(projection).fields()) {
      type = type.add(new StructField(field.name(), field.dataType(), true, Metadata.empty()));
    }
    type = type.add("_file", DataTypes.StringType, true).add("_pos", DataTypes.LongType, true);
    JavaSparkContext context = JavaSparkContext.fromSparkContext(spark.sparkContext());
    Broadcast<Table> serializable = context.broadcast(SerializableTable.copyOf(table));
    JavaRDD<PackedRows> rows;
    long count = 0;
    try {
      int slices = Math.max(1, Math.min(files.size(), context.defaultParallelism() * 2));
      boolean fromPages = !"false".equalsIgnoreCase(spark.conf().get(FROM_PAGES_CONF, "true").trim()); // as the other keyIndex switches
      rows = context.parallelize(files, slices)
          .map(new RowsOfFile(serializable, projection, values, codec, fromPages, type))
          .persist(StorageLevel.MEMORY_AND_DISK());
      for (int rowsOfFile : rows.map(new RowCount()).collect()) {
        count += rowsOfFile;
      }
    } catch (RuntimeException e) {
      serializable.destroy();
      throw e;
    }
    Dataset<Row> frame = SparkCompat.fromInternalRows(spark, rows.flatMap(new Unpacked(type.size())).rdd(), type);
    return new Read(frame, rows, serializable, count);
  }

  /**
   * Spark conf: {@code false} reads every hit file with Iceberg's readers instead of decoding the
   * hits' values from its pages ({@link HitValues}); a way out should a file's pages be read wrongly.
   */
  static final String FROM_PAGES_CONF = "spark.doris.keyIndex.rowsFromPages";

  /** Hit files this JVM's tasks decoded from their pages so far (local mode: the whole session's). */
  static long filesReadFromPages() {
    return HitValues.FILES_DECODED.get();
  }

  /** Hit files whose rows' key columns this JVM's tasks took from the probed batch keys, not the file. */
  static long filesWithKeysFromProbe() {
    return KEYS_FROM_PROBE.get();
  }

  private static final AtomicLong KEYS_FROM_PROBE = new AtomicLong();

  private static final class RowsOfFile implements org.apache.spark.api.java.function.Function<FileRows, PackedRows> {
    private static final long serialVersionUID = 3L;
    private final Broadcast<Table> table;
    private final Schema projection;
    private final Schema values;
    private final KeyCodec codec;
    private final boolean fromPages;
    private final StructType type;

    RowsOfFile(Broadcast<Table> table, Schema projection, Schema values, KeyCodec codec, boolean fromPages, StructType type) {
      this.table = table;
      this.projection = projection;
      this.values = values;
      this.codec = codec;
      this.fromPages = fromPages;
      this.type = type;
    }

    @Override
    public PackedRows call(FileRows file) {
      return PackedRows.of(rowsOf(file), type);
    }

    private List<InternalRow> rowsOf(FileRows file) {
      if (!file.keysKnown()) {
        return readAt(table.value(), projection, file, fromPages, null);
      }
      Object[][] keys = file.keyValues(codec);
      KEYS_FROM_PROBE.incrementAndGet();
      if (values.columns().isEmpty()) {
        // Nothing but the keys is needed: the file is not opened.
        List<InternalRow> rows = new ArrayList<>(keys.length);
        UTF8String location = UTF8String.fromString(file.location);
        for (int i = 0; i < keys.length; i++) {
          rows.add(row(keys[i], new Object[0], location, file.positions[i]));
        }
        return rows;
      }
      return readAt(table.value(), values, file, fromPages, keys);
    }
  }

  /** A hit's row: {@code leading} (its key values, or none), {@code values}, then its file and position. */
  static InternalRow row(Object[] leading, Object[] values, UTF8String location, long position) {
    int lead = leading == null ? 0 : leading.length;
    Object[] row = new Object[lead + values.length + 2];
    if (lead > 0) {
      System.arraycopy(leading, 0, row, 0, lead);
    }
    System.arraycopy(values, 0, row, lead, values.length);
    row[lead + values.length] = location;
    row[lead + values.length + 1] = position;
    return new GenericInternalRow(row);
  }

  /**
   * The rows of {@code file} at its positions: {@code leading[i]} (the i-th position's key values,
   * when known; null reads nothing before the projection), the projected values, then location
   * and position; decoded from the pages ({@link HitValues}) when {@code fromPages} and the file
   * allows it, else through Iceberg's readers.
   */
  static List<InternalRow> readAt(Table table, Schema projection, FileRows file, boolean fromPages, Object[][] leading) {
    InputFile input = table.io().newInputFile(file.location);
    if (fromPages) {
      try {
        List<InternalRow> rows = HitValues.read(input, projection, file.location, file.positions, leading);
        if (rows != null) {
          return rows;
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    List<BlockMetaData> groups;
    try (ParquetFileReader footer = ParquetFileReader.open(new KeyIndexFiles.ParquetInput(input), DirectZstd.options())) {
      groups = footer.getFooter().getBlocks();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    NameMapping mapping = NameMappings.of(table);
    DataType[] types = new DataType[projection.columns().size()];
    for (int i = 0; i < types.length; i++) {
      types[i] = SparkSchemaUtil.convert(projection.columns().get(i).type());
    }
    UTF8String location = UTF8String.fromString(file.location);
    long[] positions = file.positions;
    // Iceberg's vectorized reader decodes pages into column vectors where its row reader builds
    // every row: on a 1% aggregate load into 10M rows (two 5M-row files, 100k hits) the read took
    // 1.2-1.5 s instead of 2.0-2.5 s. It reads primitive columns only; nested ones go row by row.
    boolean vectorized = true;
    for (Types.NestedField field : projection.columns()) {
      vectorized &= field.type().isPrimitiveType();
    }
    List<InternalRow> result = new ArrayList<>(positions.length);
    int next = 0; // the first position not yet read
    long groupStart = 0; // the first row of group g
    int g = 0;
    while (g < groups.size() && next < positions.length) {
      if (positions[next] >= groupStart + groups.get(g).getRowCount()) {
        groupStart += groups.get(g).getRowCount(); // no hit in this row group: not read at all
        g++;
        continue;
      }
      // A run of consecutive row groups that each hold a hit: read as one split.
      int first = g;
      long runStart = groupStart;
      while (g < groups.size() && next < positions.length && positions[next] < groupStart + groups.get(g).getRowCount()) {
        groupStart += groups.get(g).getRowCount();
        next = Sorting.lowerBound(positions, next, positions.length, groupStart);
        g++;
      }
      long runRows = groupStart - runStart;
      long start = groups.get(first).getStartingPos();
      BlockMetaData last = groups.get(g - 1);
      long end = last.getStartingPos() + last.getCompressedSize();
      int at = Sorting.lowerBound(positions, 0, positions.length, runStart);
      long position = -1;
      if (vectorized) {
        int read = result.size();
        try {
          position = readBatches(input, projection, mapping, start, end - start, types, location, positions, leading, at, runStart, result);
        } catch (UnsupportedOperationException e) {
          // An encoding the vectorized reader lacks (DELTA_BYTE_ARRAY strings): the row reader has it.
          result.subList(read, result.size()).clear();
          vectorized = false;
        }
      }
      if (!vectorized) {
        position = readRows(input, projection, mapping, start, end - start, types, location, positions, leading, at, runStart, result);
      }
      if (position - runStart != runRows) {
        // The split did not select exactly these row groups: positions would be wrong.
        throw new IllegalStateException("read " + (position - runStart) + " rows of row groups " + first + ".." + (g - 1)
            + " of " + file.location + ", expected " + runRows);
      }
    }
    if (result.size() != positions.length) {
      throw new IllegalStateException(
          file.location + " holds " + result.size() + " of the " + positions.length + " rows the key index points at");
    }
    return result;
  }

  /** Reads one split row by row, keeping the rows at {@code positions} from index {@code at}; returns the position after it. */
  private static long readRows(
      InputFile input, Schema projection, NameMapping mapping, long start, long length, DataType[] types, UTF8String location,
      long[] positions, Object[][] leading, int at, long position, List<InternalRow> result) {
    Parquet.ReadBuilder builder = split(input, projection, mapping, start, length)
        .createReaderFunc(fileSchema -> SparkParquetReaders.buildReader(projection, fileSchema))
        .reuseContainers(); // most rows are not hits: only the hits' values are copied out
    try (CloseableIterable<InternalRow> rows = builder.build()) {
      for (InternalRow row : rows) {
        if (at < positions.length && positions[at] == position) {
          result.add(hit(row, types, leading == null ? null : leading[at], location, position));
          at++;
        }
        position++;
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return position;
  }

  /** {@link #readRows} through Iceberg's vectorized reader: batches of rows, hits picked out of them. */
  private static long readBatches(
      InputFile input, Schema projection, NameMapping mapping, long start, long length, DataType[] types, UTF8String location,
      long[] positions, Object[][] leading, int at, long position, List<InternalRow> result) {
    Parquet.ReadBuilder builder = split(input, projection, mapping, start, length)
        .createBatchedReaderFunc(fileSchema -> VectorizedSparkParquetReaders.buildReader(projection, fileSchema, Map.of()))
        .recordsPerBatch(BATCH_ROWS);
    try (CloseableIterable<ColumnarBatch> batches = builder.build()) {
      for (ColumnarBatch batch : batches) {
        int rows = batch.numRows();
        while (at < positions.length && positions[at] < position + rows) {
          long hit = positions[at];
          result.add(hit(batch.getRow((int) (hit - position)), types, leading == null ? null : leading[at], location, hit));
          at++;
        }
        position += rows;
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return position;
  }

  private static final int BATCH_ROWS = 4096;

  /** A reader of the byte range [start, start + length) of a file (whole row groups), by field id or {@code mapping}. */
  private static Parquet.ReadBuilder split(InputFile input, Schema projection, NameMapping mapping, long start, long length) {
    Parquet.ReadBuilder builder = Parquet.read(input).project(projection).split(start, length);
    return mapping != null ? builder.withNameMapping(mapping) : builder;
  }

  /** A hit row: {@code leading}, its values (copied out of the reader's buffers), then its file and position. */
  private static InternalRow hit(InternalRow row, DataType[] types, Object[] leading, UTF8String location, long position) {
    Object[] values = new Object[types.length];
    for (int c = 0; c < types.length; c++) {
      values[c] = row.isNullAt(c) ? null : copied(row.get(c, types[c]));
    }
    return row(leading, values, location, position);
  }

  /** Values the reader may reuse are copied (strings and nested values). */
  static Object copied(Object value) {
    if (value instanceof UTF8String) {
      return ((UTF8String) value).clone();
    }
    if (value instanceof InternalRow) {
      return ((InternalRow) value).copy();
    }
    if (value instanceof org.apache.spark.sql.catalyst.util.ArrayData) {
      return ((org.apache.spark.sql.catalyst.util.ArrayData) value).copy();
    }
    if (value instanceof org.apache.spark.sql.catalyst.util.MapData) {
      return ((org.apache.spark.sql.catalyst.util.MapData) value).copy();
    }
    if (value instanceof byte[]) {
      return ((byte[]) value).clone();
    }
    return value;
  }
}
