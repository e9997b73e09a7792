package io.icebergdoris.iceberg;

import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SerializableTable;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.mapping.NameMapping;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.spark.SparkSchemaUtil;
import org.apache.iceberg.spark.SparkUtil;
import org.apache.iceberg.spark.data.SparkParquetReaders;
import org.apache.iceberg.spark.data.SparkParquetWriters;
import org.apache.iceberg.spark.data.vectorized.VectorizedSparkParquetReaders;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.Function;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * A compaction's rewrite that keeps row order, as Doris's compaction merges rowsets: each new data
 * file is the live rows of one or more old files of one partition, copied in order. Where a row
 * went is then arithmetic, not a join: its new position is the old file's offset in the new file
 * plus its old position less the rows deleted before it when the rewrite read the file. The
 * caller keeps (old file, new file, offset, the positions deleted at the start) per old file and
 * converts later deletes through it.
 *
 * <p>Files are read by Iceberg field id with the table's current schema (renamed and added
 * columns read as a scan reads them; identity partition values from the file's partition, as
 * Iceberg's readers take them) and written with the table's Parquet properties (compression,
 * row-group size, Bloom filters) and metrics. One Spark task per new file.
 */
public final class OrderedRewrite {

  private OrderedRewrite() {}

  /** The old files to rewrite, added one by one from Python, then {@link #run}. */
  public static final class Plan {
    private final List<Source> sources = new ArrayList<>();

    /** Adds an old data file with the delete files that apply to it at the compaction's start. */
    public void add(DataFile file, List<DeleteFile> deletes) {
      sources.add(new Source(file, deletes));
    }

    public int size() {
      return sources.size();
    }
  }

  /** One old data file to copy. */
  static final class Source implements Serializable {
    private static final long serialVersionUID = 1L;
    final String location;
    final long sizeInBytes;
    final long recordCount;
    final int specId;
    final StructLike partition;
    final Integer sortOrderId;
    final List<DeleteFile> deletes;

    Source(DataFile file, List<DeleteFile> deletes) {
      this.location = file.location();
      this.sizeInBytes = file.fileSizeInBytes();
      this.recordCount = file.recordCount();
      this.specId = file.specId();
      this.partition = file.copy().partition();
      this.sortOrderId = file.sortOrderId();
      this.deletes = new ArrayList<>(deletes);
    }
  }

  /** The old files copied, in order, into one new file. */
  static final class Group implements Serializable {
    private static final long serialVersionUID = 1L;
    final List<Source> sources = new ArrayList<>();
    long bytes;
  }

  /** What one task wrote: the new file (null when no row was live) and each old file's live rows. */
  public static final class Written implements Serializable {
    private static final long serialVersionUID = 1L;
    private final DataFile file;
    private final String[] sources;
    private final long[] liveRows;

    Written(DataFile file, String[] sources, long[] liveRows) {
      this.file = file;
      this.sources = sources;
      this.liveRows = liveRows;
    }

    public DataFile file() {
      return file;
    }

    public int sourceCount() {
      return sources.length;
    }

    public String source(int index) {
      return sources[index];
    }

    /** Live rows copied from the old file at {@code index}: the next old file starts after them. */
    public long liveRows(int index) {
      return liveRows[index];
    }
  }

  /**
   * Rewrites the planned files: files of one partition are packed, in the order they were added,
   * into new files of about the table's target file size; one Spark task per new file.
   */
  public static List<Written> run(SparkSession spark, Table table, Plan plan) {
    List<Group> groups = pack(plan.sources, targetFileSize(table));
    if (groups.isEmpty()) {
      return new ArrayList<>();
    }
    JavaSparkContext context = JavaSparkContext.fromSparkContext(spark.sparkContext());
    Broadcast<Table> serializable = context.broadcast(SerializableTable.copyOf(table));
    try {
      String operation = UUID.randomUUID().toString();
      return context.parallelize(groups, groups.size()).map(new CopyGroup(serializable, operation, NameMappings.of(table))).collect();
    } finally {
      serializable.destroy();
    }
  }

  private static long targetFileSize(Table table) {
    String value = table.properties().get(TableProperties.WRITE_TARGET_FILE_SIZE_BYTES);
    try {
      return value == null ? TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT : Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      return TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT;
    }
  }

  /**
   * Per partition, consecutive files packed until their live bytes (estimated from each file's
   * size and live share) reach the target; a file is never split, so an old file maps into one new file.
   */
  static List<Group> pack(List<Source> sources, long target) {
    Map<String, List<Group>> byPartition = new LinkedHashMap<>();
    for (Source source : sources) {
      String partition = source.specId + "/" + source.partition;
      List<Group> groups = byPartition.computeIfAbsent(partition, p -> new ArrayList<>());
      long deleted = 0;
      for (DeleteFile delete : source.deletes) {
        deleted += delete.recordCount();
      }
      double live = source.recordCount == 0 ? 0 : Math.max(0.0, 1.0 - (double) deleted / source.recordCount);
      long bytes = (long) (source.sizeInBytes * live);
      Group last = groups.isEmpty() ? null : groups.get(groups.size() - 1);
      if (last == null || (last.bytes > 0 && last.bytes + bytes > target)) {
        last = new Group();
        groups.add(last);
      }
      last.sources.add(source);
      last.bytes += bytes;
    }
    List<Group> all = new ArrayList<>();
    byPartition.values().forEach(all::addAll);
    return all;
  }

  private static final class CopyGroup implements Function<Group, Written> {
    private static final long serialVersionUID = 1L;
    private final Broadcast<Table> table;
    private final String operation;
    private final NameMapping mapping;

    CopyGroup(Broadcast<Table> table, String operation, NameMapping mapping) {
      this.table = table;
      this.operation = operation;
      this.mapping = mapping;
    }

    @Override
    public Written call(Group group) throws IOException {
      Table files = table.value();
      Schema schema = files.schema();
      StructType sparkType = SparkSchemaUtil.convert(schema);
      Source first = group.sources.get(0);
      PartitionSpec spec = files.specs().get(first.specId);
      TaskContext task = TaskContext.get();
      OutputFileFactory outputs = OutputFileFactory.builderFor(files, task.partitionId(), task.taskAttemptId())
          .format(FileFormat.PARQUET).operationId(operation).build();
      EncryptedOutputFile output = outputs.newOutputFile(spec, first.partition);
      Parquet.DataWriteBuilder builder = Parquet.writeData(output)
          .schema(schema)
          .setAll(files.properties())
          .metricsConfig(MetricsConfig.forTable(files))
          .withSpec(spec)
          .withPartition(first.partition)
          .createWriterFunc(type -> SparkParquetWriters.buildWriter(sparkType, type))
          .overwrite();
      SortOrder order = keptSortOrder(files, group);
      if (order != null) {
        builder = builder.withSortOrder(order);
      }
      String[] locations = new String[group.sources.size()];
      long[] live = new long[group.sources.size()];
      long written = 0;
      DataWriter<InternalRow> writer = builder.build();
      try {
        for (int i = 0; i < locations.length; i++) {
          Source source = group.sources.get(i);
          locations[i] = source.location;
          live[i] = copyLiveRows(files, schema, source, mapping, writer);
          written += live[i];
        }
      } finally {
        writer.close();
      }
      DataFile file = writer.toDataFile();
      if (written == 0) {
        files.io().deleteFile(file.location()); // every row was deleted: no file to add
        file = null;
      }
      return new Written(file, locations, live);
    }
  }

  /** The old files' sort order when there is one file (concatenated sorted files are not sorted). */
  private static SortOrder keptSortOrder(Table table, Group group) {
    Integer id = group.sources.size() == 1 ? group.sources.get(0).sortOrderId : null;
    return id == null ? null : table.sortOrders().get(id);
  }

  /** Appends the live rows of {@code source} to {@code writer} in file order; returns how many. */
  static long copyLiveRows(Table table, Schema schema, Source source, NameMapping mapping, DataWriter<InternalRow> writer) {
    PositionDeleteIndex deleted = source.deletes.isEmpty()
        ? null
        : new BaseDeleteLoader(delete -> table.io().newInputFile(delete)).loadPositionDeletes(source.deletes, source.location);
    Map<Integer, ?> constants = identityConstants(schema, table.specs().get(source.specId), source.partition);
    Parquet.ReadBuilder read = Parquet.read(table.io().newInputFile(source.location, source.sizeInBytes)).project(schema);
    if (mapping != null) {
      read = read.withNameMapping(mapping);
    }
    long position = 0;
    long live = 0;
    try {
      if (flat(schema)) {
        // Flat rows: Iceberg's vectorized reader (as Spark's scans and rewrite_data_files use), a batch at a time.
        read = read.createBatchedReaderFunc(
                fileSchema -> VectorizedSparkParquetReaders.buildReader(schema, fileSchema, constants))
            .recordsPerBatch(BATCH_ROWS);
        try (CloseableIterable<ColumnarBatch> batches = read.build()) {
          for (ColumnarBatch batch : batches) {
            int rows = batch.numRows();
            for (int i = 0; i < rows; i++, position++) {
              if (deleted == null || !deleted.isDeleted(position)) {
                writer.write(batch.getRow(i));
                live++;
              }
            }
          }
        }
      } else {
        read = read.createReaderFunc(fileSchema -> SparkParquetReaders.buildReader(schema, fileSchema, constants))
            .reuseContainers();
        try (CloseableIterable<InternalRow> rows = read.build()) {
          for (InternalRow row : rows) {
            if (deleted == null || !deleted.isDeleted(position)) {
              writer.write(row);
              live++;
            }
            position++;
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("could not read " + source.location, e);
    }
    if (position != source.recordCount) {
      // The positions the deletes and the mapping name would not be the file's rows.
      throw new IllegalStateException(
          "data file " + source.location + " holds " + position + " rows, its metadata says " + source.recordCount);
    }
    return live;
  }

  private static final int BATCH_ROWS = 4096;

  /** Whether every column is of a primitive type (what the vectorized reader reads). */
  private static boolean flat(Schema schema) {
    for (Types.NestedField field : schema.columns()) {
      if (!field.type().isPrimitiveType()) {
        return false;
      }
    }
    return true;
  }

  /**
   * The values of identity partition columns, taken from the file's partition as Iceberg's readers
   * take them (a file written by another engine may not store them).
   */
  static Map<Integer, ?> identityConstants(Schema schema, PartitionSpec spec, StructLike partition) {
    Map<Integer, Object> constants = new HashMap<>();
    List<PartitionField> fields = spec.fields();
    for (int i = 0; i < fields.size(); i++) {
      PartitionField field = fields.get(i);
      Types.NestedField column = schema.findField(field.sourceId());
      if (!field.transform().isIdentity() || column == null) {
        continue;
      }
      Object value = widened(column.type(), partition.get(i, Object.class));
      constants.put(field.sourceId(), SparkUtil.internalToSpark(column.type(), value));
    }
    return constants;
  }

  /** A partition value stored before its column's type was promoted (int to long, float to double). */
  private static Object widened(Type type, Object value) {
    if (value instanceof Integer && type.typeId() == Type.TypeID.LONG) {
      return ((Integer) value).longValue();
    }
    if (value instanceof Float && type.typeId() == Type.TypeID.DOUBLE) {
      return ((Float) value).doubleValue();
    }
    return value;
  }
}
