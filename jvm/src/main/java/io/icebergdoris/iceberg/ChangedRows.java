package io.icebergdoris.iceberg;

import io.icebergdoris.keyindex.PositionReads;
import io.icebergdoris.spark.SparkCompat;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.LongBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SerializableTable;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.mapping.NameMapping;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.spark.SparkSchemaUtil;
import org.apache.iceberg.spark.data.SparkParquetReaders;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The rows a range of commits changed, read from exactly the data files those commits touched
 * (the change feed): rows a commit's new deletion vectors or position deletes mark, read by
 * position; and every row (but some positions) of the data files a commit added or removed.
 *
 * <p>Files are read by Iceberg field id under the table's current schema, one Spark task per
 * part (or group of parts), lazily: the DataFrame reads when it is queried. Each row carries its
 * part's change kind, commit snapshot id and commit time, the commit's ordinal in the range, and
 * its data file and position.
 */
public final class ChangedRows {

  private ChangedRows() {}

  public static final String KIND = "_doris_change_kind";
  public static final String SNAPSHOT = "_doris_change_snapshot";
  public static final String COMMITTED_MS = "_doris_change_ms";
  public static final String ORDINAL = "_doris_change_ordinal";
  public static final String FILE = "_doris_change_file";
  public static final String POSITION = "_doris_change_pos";

  /** The parts to read, added one by one from Python, then {@link #read}. */
  public static final class Plan {
    private final List<Part> parts = new ArrayList<>();

    /**
     * One data file's changed rows: with {@code allBut} false, the rows at {@code positions};
     * with it true, every row of the file but those. {@code positions}: sorted distinct row
     * positions as 8-byte little-endian longs.
     */
    public void add(
        String location, String format, long recordCount, boolean allBut, byte[] positions, String kind, long snapshotId,
        long committedAtMillis, int ordinal) {
      if (!"PARQUET".equalsIgnoreCase(format)) {
        throw new UnsupportedOperationException(
            "the change feed reads Parquet data files only; " + location + " is " + format);
      }
      parts.add(new Part(location, recordCount, allBut, positions, kind, snapshotId, committedAtMillis, ordinal));
    }

    public int size() {
      return parts.size();
    }
  }

  static final class Part implements Serializable {
    private static final long serialVersionUID = 1L;
    final String location;
    final long recordCount;
    final boolean allBut;
    final byte[] positions;
    final String kind;
    final long snapshotId;
    final long committedAtMillis;
    final int ordinal;

    Part(String location, long recordCount, boolean allBut, byte[] positions, String kind, long snapshotId,
        long committedAtMillis, int ordinal) {
      this.location = location;
      this.recordCount = recordCount;
      this.allBut = allBut;
      this.positions = positions;
      this.kind = kind;
      this.snapshotId = snapshotId;
      this.committedAtMillis = committedAtMillis;
      this.ordinal = ordinal;
    }

    long[] positionArray() {
      LongBuffer buffer = ByteBuffer.wrap(positions).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer();
      long[] result = new long[buffer.remaining()];
      buffer.get(result);
      return result;
    }
  }

  /** The table's current columns, then the change columns. */
  public static StructType rowType(Table table) {
    StructType type = new StructType();
    for (StructField field : SparkSchemaUtil.convert(table.schema()).fields()) {
      type = type.add(new StructField(field.name(), field.dataType(), true, Metadata.empty()));
    }
    return type.add(KIND, DataTypes.StringType, false)
        .add(SNAPSHOT, DataTypes.LongType, false)
        .add(COMMITTED_MS, DataTypes.LongType, false)
        .add(ORDINAL, DataTypes.IntegerType, false)
        .add(FILE, DataTypes.StringType, false)
        .add(POSITION, DataTypes.LongType, false);
  }

  /** The rows of {@code plan}'s parts, as a lazy DataFrame of {@link #rowType}. */
  public static Dataset<Row> read(SparkSession spark, Table table, Plan plan) {
    StructType type = rowType(table);
    JavaSparkContext context = JavaSparkContext.fromSparkContext(spark.sparkContext());
    Broadcast<Table> serializable = context.broadcast(SerializableTable.copyOf(table));
    boolean fromPages = !"false".equalsIgnoreCase(spark.conf().get("spark.doris.keyIndex.rowsFromPages", "true").trim());
    int slices = Math.max(1, Math.min(plan.parts.size(), context.defaultParallelism() * 2));
    List<Part> parts = plan.parts.isEmpty() ? Collections.emptyList() : plan.parts;
    return SparkCompat.fromInternalRows(
        spark, context.parallelize(parts, slices).flatMap(new RowsOfPart(serializable, fromPages)).rdd(), type);
  }

  private static final class RowsOfPart implements FlatMapFunction<Part, InternalRow> {
    private static final long serialVersionUID = 1L;
    private final Broadcast<Table> table;
    private final boolean fromPages;

    RowsOfPart(Broadcast<Table> table, boolean fromPages) {
      this.table = table;
      this.fromPages = fromPages;
    }

    @Override
    public Iterator<InternalRow> call(Part part) {
      Table current = table.value();
      Schema schema = current.schema();
      int columns = schema.columns().size();
      DataType[] types = new DataType[columns];
      for (int c = 0; c < columns; c++) {
        types[c] = SparkSchemaUtil.convert(schema.columns().get(c).type());
      }
      UTF8String kind = UTF8String.fromString(part.kind);
      UTF8String location = UTF8String.fromString(part.location);
      long[] positions = part.positionArray();
      if (!part.allBut) {
        if (positions.length == 0) {
          return Collections.emptyIterator();
        }
        List<InternalRow> read = PositionReads.rowsAt(current, schema, part.location, positions, fromPages);
        List<InternalRow> rows = new ArrayList<>(read.size());
        for (InternalRow row : read) {
          rows.add(changed(row, types, kind, part, location, row.getLong(columns + 1)));
        }
        return rows.iterator();
      }
      if (positions.length >= part.recordCount) {
        return Collections.emptyIterator();
      }
      NameMapping mapping = NameMappings.of(current);
      Parquet.ReadBuilder builder = Parquet.read(current.io().newInputFile(part.location))
          .project(schema)
          .createReaderFunc(fileSchema -> SparkParquetReaders.buildReader(schema, fileSchema));
      if (mapping != null) {
        builder = builder.withNameMapping(mapping);
      }
      CloseableIterable<InternalRow> rows = builder.build();
      return new AllBut(rows, positions, types, kind, part, location);
    }
  }

  /** Every row of a file but those at some positions, streamed. */
  private static final class AllBut implements Iterator<InternalRow> {
    private final CloseableIterable<InternalRow> source;
    private final CloseableIterator<InternalRow> rows;
    private final long[] skipped;
    private final DataType[] types;
    private final UTF8String kind;
    private final Part part;
    private final UTF8String location;
    private int nextSkipped;
    private long position;
    private InternalRow next;

    AllBut(CloseableIterable<InternalRow> source, long[] skipped, DataType[] types, UTF8String kind, Part part, UTF8String location) {
      this.source = source;
      this.rows = source.iterator();
      this.skipped = skipped;
      this.types = types;
      this.kind = kind;
      this.part = part;
      this.location = location;
    }

    @Override
    public boolean hasNext() {
      while (next == null) {
        if (!rows.hasNext()) {
          close();
          return false;
        }
        InternalRow row = rows.next();
        long at = position++;
        while (nextSkipped < skipped.length && skipped[nextSkipped] < at) {
          nextSkipped++;
        }
        if (nextSkipped < skipped.length && skipped[nextSkipped] == at) {
          continue;
        }
        next = changed(row, types, kind, part, location, at);
      }
      return true;
    }

    @Override
    public InternalRow next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      InternalRow result = next;
      next = null;
      return result;
    }

    private void close() {
      try {
        source.close();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  private static InternalRow changed(InternalRow row, DataType[] types, UTF8String kind, Part part, UTF8String location, long position) {
    Object[] values = new Object[types.length + 6];
    for (int c = 0; c < types.length; c++) {
      values[c] = row.isNullAt(c) ? null : PositionReads.kept(row.get(c, types[c]));
    }
    values[types.length] = kind;
    values[types.length + 1] = part.snapshotId;
    values[types.length + 2] = part.committedAtMillis;
    values[types.length + 3] = part.ordinal;
    values[types.length + 4] = location;
    values[types.length + 5] = position;
    return new GenericInternalRow(values);
  }
}
