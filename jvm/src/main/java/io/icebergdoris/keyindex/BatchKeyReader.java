package io.icebergdoris.keyindex;

import java.io.Serializable;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.util.DateTimeUtils;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;

/**
 * Reads a batch's keys, delete flags and sequence values on the executors, straight from Spark's
 * internal rows, into compact arrays (one {@link Chunk} per partition): a key of one integer-like
 * column as a long, any other key as its {@link KeyCodec} bytes. Collecting the batch as external
 * {@link Row}s instead costs an object per value on the driver, which at a million keys was most
 * of a load's key collection. The driver turns a key back into Spark values ({@link #keyRow})
 * only for the few rows that need them (the pruning filter's values, a sequence table's live rows).
 */
public final class BatchKeyReader implements Serializable {
  private static final long serialVersionUID = 1L;

  private final KeyCodec codec;
  private final DataType[] keyTypes;
  private final DataType sequenceType; // null without a sequence column

  private BatchKeyReader(KeyCodec codec, DataType[] keyTypes, DataType sequenceType) {
    this.codec = codec;
    this.keyTypes = keyTypes;
    this.sequenceType = sequenceType;
  }

  /**
   * The reader of a batch whose first {@code codec.columns()} columns are the keys, then the
   * delete flag, then (with {@code sequence}) the sequence value; null when a column has a Spark
   * type it does not read (the caller collects rows instead).
   */
  static BatchKeyReader of(KeyCodec codec, StructType schema, boolean sequence) {
    int n = codec.columns();
    DataType[] keyTypes = new DataType[n];
    for (int i = 0; i < n; i++) {
      keyTypes[i] = schema.fields()[i].dataType();
      if (!fits(codec.kindOf(i), keyTypes[i])) {
        return null;
      }
    }
    DataType sequenceType = sequence ? schema.fields()[n + 1].dataType() : null;
    if (sequence && !integerLike(sequenceType)) {
      return null;
    }
    return new BatchKeyReader(codec, keyTypes, sequenceType);
  }

  private static boolean fits(KeyCodec.Kind kind, DataType type) {
    switch (kind) {
      case INT:
      case LONG:
        return integerLike(type);
      case DECIMAL:
        return type instanceof DecimalType;
      case STRING:
        return type instanceof StringType;
      case BOOLEAN:
        return type instanceof BooleanType;
      default:
        return false;
    }
  }

  private static boolean integerLike(DataType type) {
    return type instanceof ByteType || type instanceof ShortType || type instanceof IntegerType || type instanceof LongType
        || type instanceof DateType || type instanceof TimestampType || type instanceof TimestampNTZType;
  }

  /** The keys of one partition's rows; rows with a NULL key are left out (they match no stored row). */
  Chunk read(Iterator<InternalRow> rows) {
    Chunk chunk = newChunk();
    while (rows.hasNext()) {
      add(chunk, rows.next());
    }
    return chunk.trimmed();
  }

  /** An empty chunk for {@link #add}. */
  public Chunk newChunk() {
    return new Chunk(codec.singleLong(), sequenceType != null);
  }

  /** Adds one row's key (its first columns, then the delete flag and sequence value) to {@code chunk}, unless a key column is NULL. */
  public void add(Chunk chunk, InternalRow row) {
    if (codec.anyNull(row)) {
      return;
    }
    int n = keyTypes.length;
    boolean delete = !row.isNullAt(n) && row.getBoolean(n);
    boolean nullSequence = sequenceType != null && row.isNullAt(n + 1);
    long sequence = sequenceType != null && !nullSequence ? integer(row, n + 1, sequenceType) : 0L;
    if (chunk.longs != null) {
      chunk.add(integer(row, 0, keyTypes[0]), null, delete, sequence, nullSequence);
    } else {
      KeyBytes out = new KeyBytes(16);
      for (int i = 0; i < n; i++) {
        DataType type = keyTypes[i];
        if (type instanceof StringType) {
          KeyCodec.writeString(out, row.getUTF8String(i).getBytes()); // Spark's UTF-8 as is: no String between
        } else if (!(type instanceof DecimalType || type instanceof BooleanType)) {
          KeyCodec.writeLong(out, integer(row, i, type)); // as writeExternal writes it, unboxed
        } else {
          codec.writeExternal(out, i, codecValue(row, i));
        }
      }
      chunk.add(0L, out.toByteArray(), delete, sequence, nullSequence);
    }
  }

  /** Non-string column {@code i} as {@link KeyCodec#writeExternal} reads it: integers (and dates, timestamps) as their long. */
  private Object codecValue(InternalRow row, int i) {
    DataType type = keyTypes[i];
    if (type instanceof DecimalType) {
      DecimalType decimal = (DecimalType) type;
      return row.getDecimal(i, decimal.precision(), decimal.scale()).toJavaBigDecimal();
    }
    if (type instanceof BooleanType) {
      return row.getBoolean(i);
    }
    return integer(row, i, type);
  }

  private static long integer(InternalRow row, int ordinal, DataType type) {
    if (type instanceof ByteType) {
      return row.getByte(ordinal);
    }
    if (type instanceof ShortType) {
      return row.getShort(ordinal);
    }
    if (type instanceof IntegerType || type instanceof DateType) {
      return row.getInt(ordinal);
    }
    return row.getLong(ordinal); // LONG, TIMESTAMP, TIMESTAMP_NTZ: micros
  }

  // ---- the driver: keys back as Spark's external values ----

  /** The key values of an integer key, as collecting the batch would have given them. */
  Row keyRow(long key) {
    return RowFactory.create(external(key, keyTypes[0]));
  }

  /** The key values of an encoded key. */
  Row keyRow(byte[] key) {
    Object[] values = new Object[keyTypes.length];
    int offset = 0;
    for (int i = 0; i < keyTypes.length; i++) {
      switch (codec.kindOf(i)) {
        case INT:
        case LONG:
          values[i] = external(KeyCodec.bytesLong(Arrays.copyOfRange(key, offset, offset + 8)), keyTypes[i]);
          offset += 8;
          break;
        case DECIMAL:
          int scale = ((DecimalType) keyTypes[i]).scale();
          if (codec.precisionOf(i) <= 18) {
            values[i] = BigDecimal.valueOf(KeyCodec.bytesLong(Arrays.copyOfRange(key, offset, offset + 8)), codec.scaleOf(i)).setScale(scale);
            offset += 8;
          } else {
            byte[] wide = Arrays.copyOfRange(key, offset, offset + 16);
            wide[0] ^= (byte) 0x80;
            values[i] = new BigDecimal(new BigInteger(wide), codec.scaleOf(i)).setScale(scale);
            offset += 16;
          }
          break;
        case STRING:
          java.io.ByteArrayOutputStream text = new java.io.ByteArrayOutputStream();
          while (!(key[offset] == 0 && key[offset + 1] == 0)) {
            text.write(key[offset]);
            offset += key[offset] == 0 ? 2 : 1; // 0x00 0x01 is an escaped 0x00
          }
          offset += 2;
          values[i] = new String(text.toByteArray(), StandardCharsets.UTF_8);
          break;
        case BOOLEAN:
          values[i] = key[offset] != 0;
          offset += 1;
          break;
        default:
          throw new IllegalStateException("unknown key kind");
      }
    }
    return RowFactory.create(values);
  }

  private static Object external(long value, DataType type) {
    if (type instanceof ByteType) {
      return (byte) value;
    }
    if (type instanceof ShortType) {
      return (short) value;
    }
    if (type instanceof IntegerType) {
      return (int) value;
    }
    if (type instanceof DateType) {
      return DateTimeUtils.toJavaDate((int) value);
    }
    if (type instanceof TimestampType) {
      return DateTimeUtils.toJavaTimestamp(value);
    }
    if (type instanceof TimestampNTZType) {
      return DateTimeUtils.microsToLocalDateTime(value);
    }
    return value;
  }

  /** Reads each partition into one chunk. */
  static final class PerPartition implements FlatMapFunction<Iterator<InternalRow>, Chunk> {
    private static final long serialVersionUID = 1L;
    private final BatchKeyReader reader;

    PerPartition(BatchKeyReader reader) {
      this.reader = reader;
    }

    @Override
    public Iterator<Chunk> call(Iterator<InternalRow> rows) {
      List<Chunk> one = new ArrayList<>(1);
      one.add(reader.read(rows));
      return one.iterator();
    }
  }

  /** One partition's keys (encoded keys in key order once trimmed), delete flags and sequence values. */
  public static final class Chunk implements Serializable {
    private static final long serialVersionUID = 1L;
    long[] longs; // the fast path; else null
    transient byte[][] bytes; // encoded keys; else null (after serialization: see encodedKeys)
    private PackedBytes packed; // the encoded keys as they travel, set by trimmed()
    boolean[] deletes;
    long[] sequences; // null without a sequence column
    boolean[] nullSequences;
    int count;

    Chunk(boolean fast, boolean sequence) {
      longs = fast ? new long[1024] : null;
      bytes = fast ? null : new byte[1024][];
      deletes = new boolean[1024];
      sequences = sequence ? new long[1024] : null;
      nullSequences = sequence ? new boolean[1024] : null;
    }

    void add(long key, byte[] encoded, boolean delete, long sequence, boolean nullSequence) {
      if (count == deletes.length) {
        resize(count * 2);
      }
      if (longs != null) {
        longs[count] = key;
      } else {
        bytes[count] = encoded;
      }
      deletes[count] = delete;
      if (sequences != null) {
        sequences[count] = sequence;
        nullSequences[count] = nullSequence;
      }
      count++;
    }

    /**
     * The chunk at its final size. Encoded keys are sorted (ties in row order), so that the
     * driver merges the chunks instead of sorting them one comparator call at a time, and packed
     * to travel to the driver. Plain longs stay in row order: the driver sorts a million of them
     * in about 0.1 s, and sorting them here did not measure faster.
     */
    public Chunk trimmed() {
      resize(count);
      if (bytes != null) {
        sortByKey();
        packed = PackedBytes.of(bytes, count);
      }
      return this;
    }

    private void sortByKey() {
      int[] order = Sorting.sortedOrder(null, bytes, count);
      boolean[] sortedDeletes = new boolean[count];
      long[] sortedSequences = sequences != null ? new long[count] : null;
      boolean[] sortedNullSequences = sequences != null ? new boolean[count] : null;
      byte[][] sortedBytes = new byte[count][];
      for (int i = 0; i < count; i++) {
        int from = order[i];
        sortedBytes[i] = bytes[from];
        sortedDeletes[i] = deletes[from];
        if (sequences != null) {
          sortedSequences[i] = sequences[from];
          sortedNullSequences[i] = nullSequences[from];
        }
      }
      bytes = sortedBytes;
      deletes = sortedDeletes;
      sequences = sortedSequences;
      nullSequences = sortedNullSequences;
    }

    /** The encoded keys (null on the fast path), unpacked once after the chunk was serialized. */
    byte[][] encodedKeys() {
      if (bytes == null && packed != null) {
        bytes = packed.unpack();
      }
      return bytes;
    }

    private void resize(int size) {
      longs = longs != null ? Arrays.copyOf(longs, size) : null;
      bytes = bytes != null ? Arrays.copyOf(bytes, size) : null;
      deletes = Arrays.copyOf(deletes, size);
      sequences = sequences != null ? Arrays.copyOf(sequences, size) : null;
      nullSequences = nullSequences != null ? Arrays.copyOf(nullSequences, size) : null;
    }
  }
}
