package io.icebergdoris.spark;

import io.icebergdoris.keyindex.BatchKeyReader;
import io.icebergdoris.keyindex.BatchKeys;
import io.icebergdoris.keyindex.IndexRequest;
import io.icebergdoris.keyindex.KeyIndex;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.BoundReference;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.catalyst.plans.logical.LocalRelation;
import org.apache.spark.sql.catalyst.types.DataTypeUtils;
import org.apache.spark.sql.catalyst.util.TypeUtils;
import org.apache.spark.sql.execution.SQLExecutionRDD;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.types.AtomicType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import scala.collection.JavaConverters;
import scala.math.Ordering;

/**
 * Counts a frame's rows per group of a few low-cardinality columns (a load's row status, target
 * partition, auto-partition key) in one Spark job with no shuffle, together with the smallest and
 * largest value of one column and whether a boolean column is ever true in the group.
 *
 * <p>Spark's {@code groupBy(...).agg(...).collect()} of a cached frame runs three jobs under
 * adaptive execution (materialising the cache as a query stage, the shuffle's map side, the final
 * aggregate). On a small batch each job is mostly scheduling, and a load's fixed cost is mostly
 * jobs. Here each task folds its rows into a handful of groups and the driver merges them; the
 * result is a local DataFrame, so collecting it runs no further job.
 */
public final class GroupCounts {

  private GroupCounts() {}

  /**
   * The groups of {@code frame} by the columns {@code joinedGroups} (names separated by newlines), each with its row count ({@code
   * count}) and, when {@code rangeColumn} is not empty, the smallest ({@code low}) and largest
   * ({@code high}) non-NULL value of that column and whether {@code flagColumn} is true in some row
   * ({@code flag}). Groups are in no particular order.
   */
  public static Dataset<Row> count(Dataset<Row> frame, String joinedGroups, String rangeColumn, String flagColumn) {
    return count(frame, joinedGroups, rangeColumn, flagColumn, (KeyFold) null).groups;
  }

  /** {@link #count}'s groups and, from the same pass, a keyed batch's keys (see {@link #countAndCollectKeys}). */
  public static final class Counted {
    private final Dataset<Row> groups;
    private final BatchKeys keys;

    Counted(Dataset<Row> groups, BatchKeys keys) {
      this.groups = groups;
      this.keys = keys;
    }

    public Dataset<Row> groups() {
      return groups;
    }

    public BatchKeys keys() {
      return keys;
    }
  }

  /**
   * {@link #count}, collecting in the same pass the keys of the rows whose {@code statusColumn} is
   * {@code keptStatus}, as {@link KeyIndex#collectBatchKeys} collects them from its own job:
   * {@code joinedKeyFrameColumns} name the frame's columns holding the request's key columns (in
   * that order), the delete flag and, with a sequence column, the sequence value. Null when those columns' types need a job of their own.
   */
  public static Counted countAndCollectKeys(
      Dataset<Row> frame, String joinedGroups, String rangeColumn, String flagColumn, String statusColumn, String keptStatus,
      String joinedKeyFrameColumns, Table table, IndexRequest request) {
    StructType schema = frame.schema();
    String[] names = joinedKeyFrameColumns.split("\n");
    int[] ordinals = new int[names.length];
    StructField[] keyFields = new StructField[names.length];
    for (int i = 0; i < names.length; i++) {
      ordinals[i] = schema.fieldIndex(names[i]);
      keyFields[i] = schema.fields()[ordinals[i]];
    }
    StructType keysSchema = new StructType(keyFields);
    BatchKeyReader reader = KeyIndex.batchKeyReader(table, keysSchema, request);
    if (reader == null) {
      return null;
    }
    KeyFold fold = new KeyFold(schema.fieldIndex(statusColumn), keptStatus, ordinals, keyFields, reader);
    Folded counted = count(frame, joinedGroups, rangeColumn, flagColumn, fold);
    List<BatchKeyReader.Chunk> chunks = counted.chunks;
    return new Counted(counted.groups, KeyIndex.batchKeys(table, keysSchema, request, reader, chunks));
  }

  /** Groups and the tasks' key chunks, before the keys are assembled. */
  private static final class Folded {
    final Dataset<Row> groups;
    final List<BatchKeyReader.Chunk> chunks;

    Folded(Dataset<Row> groups, List<BatchKeyReader.Chunk> chunks) {
      this.groups = groups;
      this.chunks = chunks;
    }
  }

  private static Folded count(Dataset<Row> frame, String joinedGroups, String rangeColumn, String flagColumn, KeyFold keyFold) {
    String[] groups = joinedGroups.split("\n");
    StructType schema = frame.schema();
    int[] groupOrdinals = new int[groups.length];
    DataType[] groupTypes = new DataType[groups.length];
    List<StructField> fields = new ArrayList<>();
    for (int i = 0; i < groups.length; i++) {
      groupOrdinals[i] = schema.fieldIndex(groups[i]);
      groupTypes[i] = schema.fields()[groupOrdinals[i]].dataType();
      fields.add(DataTypes.createStructField(groups[i], groupTypes[i], true));
    }
    fields.add(DataTypes.createStructField("count", DataTypes.LongType, false));
    boolean ranged = rangeColumn != null && !rangeColumn.isEmpty();
    int rangeOrdinal = ranged ? schema.fieldIndex(rangeColumn) : -1;
    DataType rangeType = ranged ? schema.fields()[rangeOrdinal].dataType() : null;
    int flagOrdinal = ranged ? schema.fieldIndex(flagColumn) : -1;
    if (ranged) {
      if (!(rangeType instanceof AtomicType)) {
        throw new IllegalArgumentException("column " + rangeColumn + " has no order (" + rangeType.simpleString() + ")");
      }
      fields.add(DataTypes.createStructField("low", rangeType, true));
      fields.add(DataTypes.createStructField("high", rangeType, true));
      fields.add(DataTypes.createStructField("flag", DataTypes.BooleanType, false));
    }
    Folder folder = new Folder(groupOrdinals, groupTypes, rangeOrdinal, rangeType, flagOrdinal, keyFold);
    List<TaskPart> parts = rows(frame).toJavaRDD().mapPartitions(folder).collect();

    Map<UnsafeRow, Partial> merged = new LinkedHashMap<>();
    Ordering<Object> order = ranged ? TypeUtils.getInterpretedOrdering(rangeType) : null;
    List<BatchKeyReader.Chunk> chunks = new ArrayList<>(parts.size());
    for (TaskPart part : parts) {
      if (part.keys != null) {
        chunks.add(part.keys);
      }
      for (Partial partial : part.groups) {
        Partial into = merged.get(partial.group);
        if (into == null) {
          merged.put(partial.group, partial);
        } else {
          into.absorb(partial, order);
        }
      }
    }
    List<InternalRow> rows = new ArrayList<>(merged.size());
    for (Partial partial : merged.values()) {
      Object[] values = new Object[fields.size()];
      for (int i = 0; i < groups.length; i++) {
        values[i] = partial.group.isNullAt(i) ? null : partial.group.get(i, groupTypes[i]);
      }
      values[groups.length] = partial.count;
      if (ranged) {
        values[groups.length + 1] = partial.low;
        values[groups.length + 2] = partial.high;
        values[groups.length + 3] = partial.flag;
      }
      rows.add(new GenericInternalRow(values));
    }
    StructType resultSchema = new StructType(fields.toArray(new StructField[0]));
    List<Attribute> attributes = new ArrayList<>(JavaConverters.seqAsJavaList(DataTypeUtils.toAttributes(resultSchema)));
    LocalRelation relation = SparkCompat.localRelation(attributes, rows);
    return new Folded(SparkCompat.ofRows(frame.sparkSession(), relation), chunks);
  }

  /**
   * The frame's rows, planned without adaptive execution. Adaptive execution wraps any plan that
   * reads a cached frame, and materialises the cache in a job of its own before the job that reads
   * it; for a plan with no shuffle (a projection of the cached rows) it has nothing else to adapt.
   */
  static RDD<InternalRow> rows(Dataset<Row> frame) {
    SparkSession spark = frame.sparkSession();
    SparkPlan plan = SparkCompat.prepareExecutedPlan(spark, frame.queryExecution().sparkPlan().clone());
    return new SQLExecutionRDD(plan.execute(), spark.sessionState().conf());
  }

  /** One task's groups: the group's values (an unsafe row, compared as bytes) and what it holds. */
  static final class Partial implements Serializable {
    private static final long serialVersionUID = 1L;

    final UnsafeRow group;
    long count;
    Object low; // Spark's internal value, copied out of the row it came from
    Object high;
    boolean flag;

    Partial(UnsafeRow group) {
      this.group = group;
    }

    void absorb(Partial other, Ordering<Object> order) {
      count += other.count;
      flag |= other.flag;
      if (order != null) {
        if (other.low != null && (low == null || order.lt(other.low, low))) {
          low = other.low;
        }
        if (other.high != null && (high == null || order.gt(other.high, high))) {
          high = other.high;
        }
      }
    }
  }

  /** One task's groups and, with a {@link KeyFold}, the keys of its kept rows. */
  static final class TaskPart implements Serializable {
    private static final long serialVersionUID = 1L;

    final List<Partial> groups;
    final BatchKeyReader.Chunk keys; // null without a key fold

    TaskPart(List<Partial> groups, BatchKeyReader.Chunk keys) {
      this.groups = groups;
      this.keys = keys;
    }
  }

  /** Which rows' keys a pass collects (status equal to {@code kept}) and where their key columns are. */
  static final class KeyFold implements Serializable {
    private static final long serialVersionUID = 1L;

    private final int statusOrdinal;
    private final String kept;
    private final int[] ordinals;
    private final StructField[] fields;
    private final BatchKeyReader reader;

    KeyFold(int statusOrdinal, String kept, int[] ordinals, StructField[] fields, BatchKeyReader reader) {
      this.statusOrdinal = statusOrdinal;
      this.kept = kept;
      this.ordinals = ordinals;
      this.fields = fields;
      this.reader = reader;
    }

    UnsafeProjection projection() {
      List<Expression> references = new ArrayList<>();
      for (int i = 0; i < ordinals.length; i++) {
        references.add(new BoundReference(ordinals[i], fields[i].dataType(), true));
      }
      return UnsafeProjection.create(JavaConverters.asScalaBuffer(references).toSeq());
    }
  }

  /** Folds one partition's rows into its groups (and, with a key fold, collects its kept rows' keys). */
  static final class Folder implements FlatMapFunction<Iterator<InternalRow>, TaskPart> {
    private static final long serialVersionUID = 1L;

    private final int[] groupOrdinals;
    private final DataType[] groupTypes;
    private final int rangeOrdinal; // -1: no range or flag
    private final DataType rangeType;
    private final int flagOrdinal;
    private final KeyFold keyFold; // null: no keys collected

    Folder(int[] groupOrdinals, DataType[] groupTypes, int rangeOrdinal, DataType rangeType, int flagOrdinal, KeyFold keyFold) {
      this.groupOrdinals = groupOrdinals;
      this.groupTypes = groupTypes;
      this.rangeOrdinal = rangeOrdinal;
      this.rangeType = rangeType;
      this.flagOrdinal = flagOrdinal;
      this.keyFold = keyFold;
    }

    @Override
    public Iterator<TaskPart> call(Iterator<InternalRow> rows) {
      List<Expression> references = new ArrayList<>();
      for (int i = 0; i < groupOrdinals.length; i++) {
        references.add(new BoundReference(groupOrdinals[i], groupTypes[i], true));
      }
      UnsafeProjection project = UnsafeProjection.create(JavaConverters.asScalaBuffer(references).toSeq());
      Ordering<Object> order = rangeOrdinal >= 0 ? TypeUtils.getInterpretedOrdering(rangeType) : null;
      Map<UnsafeRow, Partial> groups = new LinkedHashMap<>();
      UnsafeProjection keyProjection = keyFold != null ? keyFold.projection() : null;
      BatchKeyReader.Chunk keys = keyFold != null ? keyFold.reader.newChunk() : null;
      UTF8String kept = keyFold != null ? UTF8String.fromString(keyFold.kept) : null;
      Partial last = null;
      while (rows.hasNext()) {
        InternalRow row = rows.next();
        if (keys != null && !row.isNullAt(keyFold.statusOrdinal) && kept.equals(row.getUTF8String(keyFold.statusOrdinal))) {
          keyFold.reader.add(keys, keyProjection.apply(row));
        }
        UnsafeRow group = project.apply(row); // reused buffer: copied only for a new group
        // Rows of one group usually come together (a status and a partition per batch): compare
        // with the last group's bytes before hashing.
        if (last == null || !last.group.equals(group)) {
          last = groups.get(group);
          if (last == null) {
            last = new Partial(group.copy());
            groups.put(last.group, last);
          }
        }
        last.count++;
        if (order != null) {
          if (!row.isNullAt(rangeOrdinal)) {
            Object value = row.get(rangeOrdinal, rangeType);
            if (last.low == null || order.lt(value, last.low)) {
              last.low = InternalRow.copyValue(value);
            }
            if (last.high == null || order.gt(value, last.high)) {
              last.high = InternalRow.copyValue(value);
            }
          }
          if (!row.isNullAt(flagOrdinal) && row.getBoolean(flagOrdinal)) {
            last.flag = true;
          }
        }
      }
      List<TaskPart> one = new ArrayList<>(1);
      one.add(new TaskPart(new ArrayList<>(groups.values()), keys != null ? keys.trimmed() : null));
      return one.iterator();
    }
  }
}
