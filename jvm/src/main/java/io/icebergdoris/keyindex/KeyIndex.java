package io.icebergdoris.keyindex;

import io.icebergdoris.iceberg.LiveFiles;
import io.icebergdoris.iceberg.NameMappings;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.SerializableTable;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.mapping.NameMapping;
import org.apache.iceberg.types.Types;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.Function;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.roaringbitmap.RoaringBitmap;
import org.roaringbitmap.longlong.Roaring64NavigableMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A primary-key index for unique-key loads, in the spirit of Doris's per-segment primary key
 * index: for each data file, its keys (any key: one column or several, encoded by {@link
 * KeyCodec}) sorted with their row positions and, on tables with a sequence column, each row's
 * sequence value. A load probes the batch's keys into the entry of every candidate file (files
 * whose key range misses the batch skipped, then a binary search per key) instead of scanning and
 * joining the table's key columns.
 *
 * <p>An entry is derived data. The first probe that needs it reads it from its file under the
 * table's location ({@link KeyIndexFiles}), or builds it from the data file (its key columns,
 * read by Iceberg field id) and writes that file; either way it is then kept in the memory of the
 * JVM that probed (the executor), least recently used first out beyond a row budget. Data files
 * never change, so an entry can never be stale; its positions are physical (deleted rows
 * included), and each probe drops those the file's delete files of the looked-up snapshot mark.
 */
public final class KeyIndex {
  private static final Logger LOG = LoggerFactory.getLogger(KeyIndex.class);
  private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();

  /** Where a probed file's entry came from. */
  enum Source {
    CACHED,
    READ,
    BUILT
  }

  /** Keys of one batch, sorted, with whether each one is a delete and its sequence value; built on the driver. */
  public static final class BatchKeys implements Serializable {
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
     * as a JSON array (one py4j transfer, not one per value): numbers, strings and booleans as
     * they are, decimals as {"decimal": "text"}, dates and timestamps as ISO text.
     */
    public String firstColumnValuesJson() {
      List<Object> values = new ArrayList<>(count());
      for (int i = 0; i < count(); i++) {
        values.add(pythonValue(keyRow(i).get(0)));
      }
      return toJson(values);
    }

    /** The first key column's smallest and largest value (keys sort by their first column first), as {@link #firstColumnValuesJson}. */
    public String firstColumnRangeJson() {
      List<Object> range = new ArrayList<>();
      if (count() > 0) {
        range.add(pythonValue(keyRow(0).get(0)));
        range.add(pythonValue(keyRow(count() - 1).get(0)));
      }
      return toJson(range);
    }

    private static String toJson(List<Object> values) {
      try {
        return JSON.writeValueAsString(values);
      } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
        throw new IllegalStateException("could not encode the batch's key values", e);
      }
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
  }

  /** Which versions of a sequence table's batch win ({@link Lookup#decideBySequence}). */
  public static final class SequenceDecision {
    private final String locations;
    private final byte[] positions;
    private final long deletedRows;
    private final boolean anyDeleteWins;
    private final Dataset<Row> losingKeys;

    SequenceDecision(String locations, byte[] positions, long deletedRows, boolean anyDeleteWins, Dataset<Row> losingKeys) {
      this.locations = locations;
      this.positions = positions;
      this.deletedRows = deletedRows;
      this.anyDeleteWins = anyDeleteWins;
      this.losingKeys = losingKeys;
    }

    /** Files with live rows the winners replace, joined by {@link LiveFiles#SEPARATOR}. */
    public String locations() {
      return locations;
    }

    /** Per file of {@link #locations()}: upserted then deleted positions, as {@link Lookup#positionsOfHits()}. */
    public byte[] positions() {
      return positions;
    }

    /** Live rows that winning deletes remove. */
    public long deletedRows() {
      return deletedRows;
    }

    /** Whether a delete wins (its tombstone is written). */
    public boolean anyDeleteWins() {
      return anyDeleteWins;
    }

    /** The keys whose batch version loses (key columns), or null when every version wins. */
    public Dataset<Row> losingKeys() {
      return losingKeys;
    }
  }

  /** What probing one data file found. */
  public static final class FileHits implements Serializable {
    private static final long serialVersionUID = 3L;
    final String location;
    final boolean indexable; // false: a NULL key in the file (written by another engine)
    final Source source;
    final String rejected; // why a stored entry was not used (corrupt, unreadable), or null
    final String unwritten; // why a built entry could not be stored, or null
    final long hitCount; // positions found (a position may count twice: only whether any is used)
    final byte[] upserts; // live positions of keys the batch upserts (portable 64-bit Roaring)
    final byte[] deletes; // live positions of keys the batch deletes (portable 64-bit Roaring)
    // Tables with a sequence column: per batch key found in the file, the largest stored sequence
    // value over every physical row (deleted ones too). The live rows of each batch key: on
    // sequence tables, and on others when the probe was asked to keep each hit's key.
    final int[] storedKeys;
    final long[] storedSequences;
    final int[] liveKeys;
    final long[] livePositions;
    // The batch keys with a live row here, and whether one has several: a load that merges with
    // the stored rows skips grouping them per key when no key has two live rows in the table.
    final RoaringBitmap liveKeySet;
    final boolean repeatsLiveKey;

    FileHits(String location, boolean indexable, Source source, String rejected, String unwritten, Positions upserts, Positions deletes,
        int[] storedKeys, long[] storedSequences, int[] liveKeys, long[] livePositions, RoaringBitmap liveKeySet,
        boolean repeatsLiveKey) {
      this.location = location;
      this.indexable = indexable;
      this.source = source;
      this.rejected = rejected;
      this.unwritten = unwritten;
      this.upserts = upserts.portableRoaring();
      this.deletes = deletes.portableRoaring();
      this.storedKeys = storedKeys;
      this.storedSequences = storedSequences;
      this.liveKeys = liveKeys;
      this.livePositions = livePositions;
      this.liveKeySet = liveKeySet;
      this.repeatsLiveKey = repeatsLiveKey;
      this.hitCount = upserts.values.getLongCardinality() + deletes.values.getLongCardinality() + storedKeys.length + liveKeys.length;
    }
  }

  /** The result of one lookup, read from Python. */
  public static final class Lookup {
    private final Map<String, FileHits> hits = new LinkedHashMap<>();
    private final SparkSession spark;
    private final BatchKeys batch;
    private final Types.NestedField sequence;
    private final KeyCodec codec;

    Lookup(List<FileHits> probed, SparkSession spark, BatchKeys batch, Layout layout) {
      for (FileHits file : probed) {
        hits.put(file.location, file);
      }
      this.spark = spark;
      this.batch = batch;
      this.sequence = layout.sequence;
      this.codec = layout.codec;
    }

    /** Locations of probed files that hold some key of the batch. */
    public String locationsWithHits() {
      List<String> result = new ArrayList<>();
      for (FileHits file : hits.values()) {
        if (file.indexable && file.hitCount > 0) {
          result.add(file.location);
        }
      }
      return String.join(LiveFiles.SEPARATOR, result);
    }

    /** Locations of probed files the index cannot cover (NULL keys). */
    public String unindexable() {
      List<String> result = new ArrayList<>();
      for (FileHits file : hits.values()) {
        if (!file.indexable) {
          result.add(file.location);
        }
      }
      return String.join(LiveFiles.SEPARATOR, result);
    }

    /** One line per stored entry that was rejected or could not be written: "location: reason". */
    public String problems() {
      List<String> result = new ArrayList<>();
      for (FileHits file : hits.values()) {
        if (file.rejected != null) {
          result.add(file.location + ": stored entry rejected (" + file.rejected + "), rebuilt from the data file");
        }
        if (file.unwritten != null) {
          result.add(file.location + ": entry not stored (" + file.unwritten + ")");
        }
      }
      return String.join(LiveFiles.SEPARATOR, result);
    }

    public int probedFiles() {
      return hits.size();
    }

    /**
     * Whether no batch key has more than one live row among the probed files (a table only
     * iceberg-doris writes; a plain INSERT can add a second): then the stored rows read by
     * position need no grouping per key.
     */
    public boolean oneLiveRowPerKey() {
      RoaringBitmap union = new RoaringBitmap();
      long total = 0;
      for (FileHits file : hits.values()) {
        if (file.repeatsLiveKey) {
          return false;
        }
        union.or(file.liveKeySet);
        total += file.liveKeySet.getLongCardinality();
      }
      return union.getLongCardinality() == total;
    }

    public int builtFiles() {
      return count(Source.BUILT);
    }

    public int readFiles() {
      return count(Source.READ);
    }

    private int count(Source source) {
      int result = 0;
      for (FileHits file : hits.values()) {
        result += file.source == source ? 1 : 0;
      }
      return result;
    }

    /**
     * The positions of every file in {@link #locationsWithHits()}, in that order, in one array
     * (one py4j transfer): per file its upserts then its deletes, each a big-endian int32 length
     * and a portable 64-bit Roaring bitmap (what pyroaring's {@code BitMap64.deserialize} reads).
     */
    public byte[] positionsOfHits() {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (DataOutputStream out = new DataOutputStream(bytes)) {
        for (FileHits file : hits.values()) {
          if (file.indexable && file.hitCount > 0) {
            out.writeInt(file.upserts.length);
            out.write(file.upserts);
            out.writeInt(file.deletes.length);
            out.write(file.deletes);
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return bytes.toByteArray();
    }

    /** Sequence tables: the live rows of the batch's keys, as the scan finds them (keys, _file, _pos). */
    public Dataset<Row> liveRows() {
      List<Row> rows = new ArrayList<>();
      for (FileHits file : hits.values()) {
        for (int i = 0; i < file.liveKeys.length; i++) {
          rows.add(withValues(batch.keyRow(file.liveKeys[i]), file.location, file.livePositions[i]));
        }
      }
      StructType type = batch.keyType.add("_file", DataTypes.StringType, true).add("_pos", DataTypes.LongType, true);
      return spark.createDataFrame(rows, type);
    }

    /**
     * The live rows of the batch's keys with the stored values of {@code joinedColumns} (the key
     * columns first, then the columns the load merges with; current names), read by position from
     * the hit data files on the executors ({@link KeyIndexRows}): the projected columns, then
     * {@code _file} and {@code _pos}. Any key model, with or without a sequence column. Where the
     * probe kept each hit's batch key, the key columns are that key's values, not read.
     */
    public KeyIndexRows.Read readLiveRows(Table table, String joinedColumns) {
      List<KeyIndexRows.FileRows> files = new ArrayList<>();
      for (FileHits file : hits.values()) {
        if (!file.indexable || file.hitCount == 0) {
          continue;
        }
        Roaring64NavigableMap positions = portable(file.upserts);
        positions.or(portable(file.deletes));
        for (long position : file.livePositions) {
          positions.addLong(position);
        }
        if (positions.isEmpty()) {
          continue;
        }
        if (positions.getLongCardinality() != file.livePositions.length) {
          files.add(new KeyIndexRows.FileRows(file.location, positions.toArray()));
          continue;
        }
        // Every hit has its batch key: sorted by position, the keys move along.
        long[] sorted = file.livePositions.clone();
        int[] keys = file.liveKeys.clone();
        sort(sorted, keys);
        if (batch.longs != null) {
          long[] longs = new long[keys.length];
          for (int i = 0; i < keys.length; i++) {
            longs[i] = batch.longs[keys[i]];
          }
          files.add(new KeyIndexRows.FileRows(file.location, sorted, longs, null));
        } else {
          byte[][] all = batch.bytes();
          byte[][] encoded = new byte[keys.length][];
          for (int i = 0; i < keys.length; i++) {
            encoded[i] = all[keys[i]];
          }
          files.add(new KeyIndexRows.FileRows(file.location, sorted, null, PackedBytes.of(encoded, encoded.length)));
        }
      }
      return KeyIndexRows.read(spark, table, files, joinedColumns, codec);
    }

    private static Roaring64NavigableMap portable(byte[] serialized) {
      Roaring64NavigableMap positions = new Roaring64NavigableMap();
      try {
        positions.deserializePortable(new java.io.DataInputStream(new java.io.ByteArrayInputStream(serialized)));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return positions;
    }

    /**
     * Sequence tables, full-row loads of one version per key: which versions win, decided from the
     * index alone as {@code plan.decide} decides it (Doris's rule): a version applies when no
     * stored version of its key has a sequence value, or when its own is not NULL and at least the
     * largest stored one (deleted versions and tombstones included). The winners' live rows are
     * the positions to delete; the losers are handed back as keys, so the batch is filtered
     * without a join when every version wins (the usual CDC stream).
     */
    public SequenceDecision decideBySequence() {
      int count = batch.count();
      long[] largest = new long[count];
      boolean[] stored = new boolean[count];
      for (FileHits file : hits.values()) {
        for (int i = 0; i < file.storedKeys.length; i++) {
          int key = file.storedKeys[i];
          if (!stored[key] || file.storedSequences[i] > largest[key]) {
            largest[key] = file.storedSequences[i];
            stored[key] = true;
          }
        }
      }
      boolean[] wins = new boolean[count];
      List<Row> losers = new ArrayList<>();
      boolean anyDeleteWins = false;
      for (int key = 0; key < count; key++) {
        wins[key] = !stored[key] || (!batch.nullSequences[key] && batch.sequences[key] >= largest[key]);
        if (!wins[key]) {
          losers.add(batch.keyRow(key));
        } else if (batch.deletes[key] == 1) {
          anyDeleteWins = true;
        }
      }
      List<String> locations = new ArrayList<>();
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      long deletedRows = 0;
      try (DataOutputStream out = new DataOutputStream(bytes)) {
        for (FileHits file : hits.values()) {
          Positions upserts = new Positions();
          Positions deletes = new Positions();
          for (int i = 0; i < file.liveKeys.length; i++) {
            int key = file.liveKeys[i];
            if (wins[key]) {
              (batch.deletes[key] == 1 ? deletes : upserts).add(file.livePositions[i]);
            }
          }
          long marked = upserts.values.getLongCardinality() + deletes.values.getLongCardinality();
          if (marked == 0) {
            continue;
          }
          deletedRows += deletes.values.getLongCardinality();
          locations.add(file.location);
          byte[] upserted = upserts.portableRoaring();
          byte[] deleted = deletes.portableRoaring();
          out.writeInt(upserted.length);
          out.write(upserted);
          out.writeInt(deleted.length);
          out.write(deleted);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      Dataset<Row> losing = losers.isEmpty() ? null : spark.createDataFrame(losers, batch.keyType);
      return new SequenceDecision(String.join(LiveFiles.SEPARATOR, locations), bytes.toByteArray(), deletedRows, anyDeleteWins, losing);
    }

    /**
     * Sequence tables: per batch key, the largest sequence value over every stored version (keys,
     * then the value as the sequence column's Spark type); keys without one are absent.
     */
    public Dataset<Row> storedSequences(String column) {
      Map<Integer, Long> largest = new HashMap<>();
      for (FileHits file : hits.values()) {
        for (int i = 0; i < file.storedKeys.length; i++) {
          largest.merge(file.storedKeys[i], file.storedSequences[i], Math::max);
        }
      }
      List<Row> rows = new ArrayList<>(largest.size());
      for (Map.Entry<Integer, Long> entry : largest.entrySet()) {
        rows.add(withValues(batch.keyRow(entry.getKey()), sparkValue(entry.getValue())));
      }
      return spark.createDataFrame(rows, batch.keyType.add(column, sparkType(), true));
    }

    private org.apache.spark.sql.types.DataType sparkType() {
      switch (sequence.type().typeId()) {
        case INTEGER:
          return DataTypes.IntegerType;
        case DATE:
          return DataTypes.DateType;
        case TIMESTAMP:
          return ((Types.TimestampType) sequence.type()).shouldAdjustToUTC() ? DataTypes.TimestampType : DataTypes.TimestampNTZType;
        default:
          return DataTypes.LongType;
      }
    }

    private Object sparkValue(long value) {
      switch (sequence.type().typeId()) {
        case INTEGER:
          return (int) value;
        case DATE:
          return org.apache.spark.sql.catalyst.util.DateTimeUtils.toJavaDate((int) value);
        case TIMESTAMP:
          return ((Types.TimestampType) sequence.type()).shouldAdjustToUTC()
              ? org.apache.spark.sql.catalyst.util.DateTimeUtils.toJavaTimestamp(value)
              : org.apache.spark.sql.catalyst.util.DateTimeUtils.microsToLocalDateTime(value);
        default:
          return value;
      }
    }

    private static Row withValues(Row keys, Object... more) {
      Object[] values = new Object[keys.length() + more.length];
      for (int i = 0; i < keys.length(); i++) {
        values[i] = keys.get(i);
      }
      System.arraycopy(more, 0, values, keys.length(), more.length);
      return RowFactory.create(values);
    }
  }

  /** How the probes of one lookup find, read, build and store entries. */
  static final class Layout implements Serializable {
    private static final long serialVersionUID = 1L;
    final KeyCodec codec;
    final List<Types.NestedField> keys;
    final Types.NestedField sequence; // null without a sequence column
    final String layoutHash;
    final boolean persist;
    final NameMapping names; // the table's name mapping (files without field ids), or null

    Layout(KeyCodec codec, List<Types.NestedField> keys, Types.NestedField sequence, boolean persist, NameMapping names, String namesText) {
      this.codec = codec;
      this.keys = keys;
      this.sequence = sequence;
      this.layoutHash = KeyIndexFiles.layoutHash(codec, sequence, namesText);
      this.persist = persist;
      this.names = names;
    }
  }

  private static final Object LOCK = new Object();
  // Access-ordered: iteration starts at the least recently used entry. Keyed by entry location
  // (data file identity and key layout).
  private static final LinkedHashMap<String, KeyIndexEntry> CACHE = new LinkedHashMap<>(64, 0.75f, true);
  private static long cachedRows = 0;

  private KeyIndex() {}

  static Layout layout(Table table, String joinedKeyColumns, String sequenceColumn, boolean persist) {
    List<Types.NestedField> keys = new ArrayList<>();
    for (String name : joinedKeyColumns.split(LiveFiles.SEPARATOR)) {
      Types.NestedField field = table.schema().findField(name);
      if (field == null) {
        throw new IllegalArgumentException("no key column " + name);
      }
      keys.add(field);
    }
    Types.NestedField sequence = null;
    if (sequenceColumn != null && !sequenceColumn.isEmpty()) {
      sequence = table.schema().findField(sequenceColumn);
      KeyCodec.Kind kind = KeyCodec.kind(sequence.type());
      if (kind != KeyCodec.Kind.INT && kind != KeyCodec.Kind.LONG) {
        throw new IllegalArgumentException("The key index keeps integer, DATE or DATETIME sequence values, not " + sequence.type());
      }
    }
    return new Layout(KeyCodec.of(keys), keys, sequence, persist, NameMappings.of(table), NameMappings.text(table));
  }

  /**
   * Collects the batch's keys (its first {@code n} columns, the table's key columns
   * {@code joinedKeyColumns}, in that order), delete flags (column n, boolean) and, when
   * {@code sequenceColumn} is given, sequence values (column n+1, the sequence column's type) into
   * the driver JVM, sorted by key. A probe needs one row per key: a caller that collects rows not
   * yet de-duplicated checks {@link BatchKeys#hasDuplicates()}. Rows with a NULL key match no
   * stored row (as in the scan's join) and are left out.
   */
  public static BatchKeys batchKeys(Dataset<Row> batch, Table table, String joinedKeyColumns, String sequenceColumn) {
    Layout layout = layout(table, joinedKeyColumns, sequenceColumn, false);
    KeyCodec codec = layout.codec;
    StructType keyType = new StructType(Arrays.copyOf(batch.schema().fields(), codec.columns()));
    BatchKeyReader reader = BatchKeyReader.of(codec, batch.schema(), layout.sequence != null);
    if (reader == null) {
      return batchKeysFromRows(batch, layout, keyType);
    }
    List<BatchKeyReader.Chunk> chunks =
        batch.queryExecution().toRdd().toJavaRDD().mapPartitions(new BatchKeyReader.PerPartition(reader)).collect();
    return assemble(layout, reader, keyType, chunks);
  }

  /**
   * The reader of {@link #batchKeys}'s columns (the keys, the delete flag, the sequence value),
   * for a pass over rows that collects the keys on its way ({@code io.icebergdoris.spark.GroupCounts});
   * null when a column's type needs {@link #batchKeys} itself. {@code keysSchema}: those columns.
   */
  public static BatchKeyReader batchKeyReader(Table table, StructType keysSchema, String joinedKeyColumns, String sequenceColumn) {
    Layout layout = layout(table, joinedKeyColumns, sequenceColumn, false);
    return BatchKeyReader.of(layout.codec, keysSchema, layout.sequence != null);
  }

  /** What {@link #batchKeys} returns, from the chunks a pass read with {@link #batchKeyReader}. */
  public static BatchKeys batchKeys(
      Table table, StructType keysSchema, String joinedKeyColumns, String sequenceColumn, BatchKeyReader reader,
      List<BatchKeyReader.Chunk> chunks) {
    Layout layout = layout(table, joinedKeyColumns, sequenceColumn, false);
    // Named as the table's key columns whatever the pass called them (losing keys join by name).
    String[] names = joinedKeyColumns.split(LiveFiles.SEPARATOR);
    StructField[] fields = new StructField[layout.codec.columns()];
    for (int i = 0; i < fields.length; i++) {
      StructField field = keysSchema.fields()[i];
      fields[i] = new StructField(names[i], field.dataType(), field.nullable(), field.metadata());
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
    int[] order = fast ? sortedOrder(longs, null, count) : mergedOrder(bytes, runs);
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

  /**
   * The order of encoded keys made of sorted runs ({@code runs[j]} to
   * {@code runs[j + 1]}) by key, ties in their given order: adjacent runs merged pairwise, so the
   * driver makes a few linear passes instead of sorting every key with a comparator.
   */
  static int[] mergedOrder(byte[][] bytes, int[] runs) {
    int count = runs[runs.length - 1];
    int[] order = new int[count];
    for (int i = 0; i < count; i++) {
      order[i] = i;
    }
    int[] spare = new int[count];
    int[] bounds = runs.clone();
    int runCount = runs.length - 1;
    while (runCount > 1) {
      int[] merged = new int[(runCount + 1) / 2 + 1];
      int next = 0;
      for (int j = 0; j < runCount; j += 2) {
        int low = bounds[j];
        int middle = bounds[j + 1];
        int high = j + 2 <= runCount ? bounds[j + 2] : middle;
        int left = low;
        int right = middle;
        int out = low;
        while (left < middle && right < high) {
          spare[out++] = Arrays.compareUnsigned(bytes[order[left]], bytes[order[right]]) <= 0 ? order[left++] : order[right++];
        }
        while (left < middle) {
          spare[out++] = order[left++];
        }
        while (right < high) {
          spare[out++] = order[right++];
        }
        merged[next++] = low;
      }
      merged[next] = count;
      int[] swap = order;
      order = spare;
      spare = swap;
      bounds = merged;
      runCount = next;
    }
    return order;
  }

  /** The order of {@code count} keys (longs, else encoded bytes) by key (ties in their given order for encoded keys). */
  static int[] sortedOrder(long[] longs, byte[][] bytes, int count) {
    if (longs == null) {
      return EncodedKeyOrder.of(bytes, count);
    }
    int[] order = new int[count];
    for (int i = 0; i < count; i++) {
      order[i] = i;
    }
    sort(longs.clone(), order); // primitive: no boxing for the common integer key
    return order;
  }

  /** {@link #batchKeys} for key columns of Spark types {@link BatchKeyReader} does not read: the rows are collected. */
  private static BatchKeys batchKeysFromRows(Dataset<Row> batch, Layout layout, StructType keyType) {
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
    int[] order = sortedOrder(longs, bytes, count);
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

  /**
   * Probes {@code batch} into the entry of each data file of {@code plan}, one Spark task per
   * group of files; entries missing in the executor that runs a task are read from their files
   * there, or built and (with {@code persist}) written. {@code keysPerHit}: keep each live hit's
   * batch key (as sequence tables always do), for {@link Lookup#readLiveRows} to skip key columns.
   */
  public static Lookup lookup(
      SparkSession spark, Table table, LiveFiles plan, String joinedKeyColumns, String sequenceColumn, BatchKeys batch,
      long maxRows, boolean persist, boolean keysPerHit) {
    List<FileToProbe> files = new ArrayList<>();
    for (DataFile file : plan.dataFiles()) {
      files.add(new FileToProbe(file, plan.deletes(file.location())));
    }
    Layout layout = layout(table, joinedKeyColumns, sequenceColumn, persist);
    if (files.isEmpty() || batch.count() == 0) {
      return new Lookup(new ArrayList<>(), spark, batch, layout);
    }
    if (layout.codec.singleLong() != (batch.longs != null)) {
      throw new IllegalArgumentException("the batch's keys were collected for another key layout");
    }
    JavaSparkContext context = JavaSparkContext.fromSparkContext(spark.sparkContext());
    Broadcast<Table> serializable = context.broadcast(SerializableTable.copyOf(table));
    Broadcast<BatchKeys> keys = context.broadcast(batch);
    try {
      int slices = Math.max(1, Math.min(files.size(), context.defaultParallelism() * 2));
      List<FileHits> probed =
          context.parallelize(files, slices).map(new Probe(serializable, keys, layout, maxRows, keysPerHit)).collect();
      return new Lookup(probed, spark, batch, layout);
    } finally {
      serializable.destroy();
      keys.destroy();
    }
  }

  /** Entries and rows cached in this JVM (for tests and diagnostics). */
  public static long cachedRows() {
    synchronized (LOCK) {
      return cachedRows;
    }
  }

  public static int cachedFiles() {
    synchronized (LOCK) {
      return CACHE.size();
    }
  }

  /** Forgets every entry of this JVM (its stored files stay). */
  public static void clear() {
    synchronized (LOCK) {
      CACHE.clear();
      cachedRows = 0;
    }
  }

  /** Deletes {@code table}'s stored entries of data files not in {@code referenced}; see {@link KeyIndexFiles#removeOrphans}. */
  public static long removeOrphanEntries(Table table, Dataset<Row> referenced) {
    return KeyIndexFiles.removeOrphans(table, referenced);
  }

  /** The folder of {@code table}'s stored entries. */
  public static String entryFolder(Table table) {
    return KeyIndexFiles.folder(table.location());
  }

  /** A data file to probe with the delete files that apply to it in the looked-up snapshot. */
  static final class FileToProbe implements Serializable {
    private static final long serialVersionUID = 2L;
    final String location;
    final long sizeInBytes;
    final long recordCount;
    final List<DeleteFile> deletes;

    FileToProbe(DataFile file, List<DeleteFile> deletes) {
      this.location = file.location();
      this.sizeInBytes = file.fileSizeInBytes();
      this.recordCount = file.recordCount();
      this.deletes = new ArrayList<>(deletes);
    }
  }

  private static final class Probe implements Function<FileToProbe, FileHits> {
    private static final long serialVersionUID = 3L;
    private final Broadcast<Table> table;
    private final Broadcast<BatchKeys> batch;
    private final Layout layout;
    private final long maxRows;
    private final boolean keysPerHit;

    Probe(Broadcast<Table> table, Broadcast<BatchKeys> batch, Layout layout, long maxRows, boolean keysPerHit) {
      this.table = table;
      this.batch = batch;
      this.layout = layout;
      this.maxRows = maxRows;
      this.keysPerHit = keysPerHit;
    }

    @Override
    public FileHits call(FileToProbe file) {
      Table files = table.value();
      Found found = entryFor(files, file, layout, maxRows);
      if (found.entry == null) {
        return new FileHits(file.location, false, Source.BUILT, found.rejected, null, new Positions(), new Positions(),
            new int[0], new long[0], new int[0], new long[0], new RoaringBitmap(), false);
      }
      PositionDeleteIndex deleted = null;
      if (!file.deletes.isEmpty()) {
        // The file's DV (or position delete files): the index holds physical rows, hits must be live.
        deleted = new BaseDeleteLoader(delete -> files.io().newInputFile(delete)).loadPositionDeletes(file.deletes, file.location);
      }
      return probe(file.location, found.entry, batch.value(), found.source, found.rejected, found.unwritten, deleted, keysPerHit);
    }
  }

  /** A file's entry (null: the file holds a NULL key), where it came from and what went wrong on the way. */
  static final class Found {
    final KeyIndexEntry entry;
    final Source source;
    final String rejected;
    final String unwritten;

    Found(KeyIndexEntry entry, Source source, String rejected, String unwritten) {
      this.entry = entry;
      this.source = source;
      this.rejected = rejected;
      this.unwritten = unwritten;
    }
  }

  /**
   * The entry of {@code file}: from this JVM's cache, else read from its stored file, else built
   * from the data file and (with {@code layout.persist}) stored; kept in the cache either way.
   */
  static Found entryFor(Table files, FileToProbe file, Layout layout, long maxRows) {
    String hash = KeyIndexFiles.dataFileHash(file.location, file.sizeInBytes, file.recordCount);
    String entryLocation = KeyIndexFiles.entryLocation(files.location(), hash, layout.layoutHash);
    KeyIndexEntry entry;
    synchronized (LOCK) {
      entry = CACHE.get(entryLocation);
    }
    if (entry != null) {
      return new Found(entry, Source.CACHED, null, null);
    }
    Source source = Source.READ;
    String rejected = null;
    String unwritten = null;
    if (layout.persist) {
      try {
        if (KeyIndexFiles.exists(files.io(), entryLocation)) {
          entry = KeyIndexFiles.read(files.io(), entryLocation, layout.codec, layout.sequence != null, file.recordCount);
        }
      } catch (Exception e) {
        rejected = e.getClass().getSimpleName() + ": " + e.getMessage();
        LOG.warn("key index: the stored entry {} of {} is unusable ({}); rebuilding it from the data file", entryLocation, file.location, rejected);
        entry = null;
      }
    }
    if (entry == null) {
      entry = KeyIndexEntry.build(files.io(), file.location, layout.codec, layout.keys, layout.sequence, layout.names);
      if (entry == null) {
        return new Found(null, Source.BUILT, rejected, null);
      }
      source = Source.BUILT;
      if (layout.persist) {
        try {
          KeyIndexFiles.write(files.io(), entryLocation, entry, file.location);
        } catch (Exception e) {
          unwritten = e.getClass().getSimpleName() + ": " + e.getMessage();
          LOG.warn("key index: could not store the entry of {} at {} ({})", file.location, entryLocation, unwritten);
        }
      }
    }
    remember(entryLocation, entry, maxRows);
    return new Found(entry, source, rejected, unwritten);
  }

  /**
   * Builds, stores and caches the entries of data files a load has just written (not committed
   * yet), one Spark task per group of files: the load that writes a file indexes it while its rows
   * are at hand, so no later lookup (in this session or another) builds it on its own latency path.
   * Returns one line per file left unindexed ("location: reason"); a file with a NULL key is
   * skipped silently (lookups scan it).
   */
  public static String indexNewFiles(
      SparkSession spark, Table table, List<DataFile> dataFiles, String joinedKeyColumns, String sequenceColumn, long maxRows) {
    return String.join(LiveFiles.SEPARATOR, unwritten(indexFiles(spark, table, dataFiles, joinedKeyColumns, sequenceColumn, maxRows)));
  }

  /** Builds (or finds) and caches the entries of {@code dataFiles}, one Spark task per group of files. */
  private static List<FileKeys> indexFiles(
      SparkSession spark, Table table, List<DataFile> dataFiles, String joinedKeyColumns, String sequenceColumn, long maxRows) {
    if (dataFiles.isEmpty()) {
      return new ArrayList<>();
    }
    List<FileToProbe> files = new ArrayList<>();
    for (DataFile file : dataFiles) {
      files.add(new FileToProbe(file, new ArrayList<>()));
    }
    Layout layout = layout(table, joinedKeyColumns, sequenceColumn, true);
    JavaSparkContext context = JavaSparkContext.fromSparkContext(spark.sparkContext());
    Broadcast<Table> serializable = context.broadcast(SerializableTable.copyOf(table));
    try {
      int slices = Math.max(1, Math.min(files.size(), context.defaultParallelism() * 2));
      return context.parallelize(files, slices).map(new KeysOfFile(serializable, layout, maxRows)).collect();
    } finally {
      serializable.destroy();
    }
  }

  /** One line per file whose entry could not be stored: "location: entry not stored (reason)". */
  private static List<String> unwritten(List<FileKeys> files) {
    List<String> lines = new ArrayList<>();
    for (FileKeys file : files) {
      if (file.unwritten != null) {
        lines.add(file.location + ": entry not stored (" + file.unwritten + ")");
      }
    }
    return lines;
  }

  /**
   * Indexes a load's new, uncommitted files as {@link #indexNewFiles} does, and says whether a key
   * occurs more than once among them: {@code "distinct"}, {@code "repeats"}, or {@code "unknown"}
   * (a file has a NULL key or no entry). Files of different partitions share no key when every
   * partition source column is a key column (Doris makes partition and bucket columns key
   * columns); otherwise every file is compared with every other: files whose key ranges overlap
   * are merged in key order ({@link NewFileRepeats}). The verdict is followed by one line per entry that could not be
   * stored ("location: entry not stored (reason)"), as {@link #indexNewFiles} reports them.
   */
  public static String newFilesRepeatKeys(
      SparkSession spark, Table table, List<DataFile> dataFiles, String joinedKeyColumns, String sequenceColumn, long maxRows) {
    List<FileKeys> found = indexFiles(spark, table, dataFiles, joinedKeyColumns, sequenceColumn, maxRows);
    java.util.Set<Integer> keyIds = new java.util.HashSet<>();
    for (String name : joinedKeyColumns.split(LiveFiles.SEPARATOR)) {
      keyIds.add(table.schema().findField(name).fieldId());
    }
    boolean partitionedByKeys = true;
    for (org.apache.iceberg.PartitionField field : table.spec().fields()) {
      partitionedByKeys &= keyIds.contains(field.sourceId());
    }
    Map<String, String> groupOf = new HashMap<>();
    for (DataFile file : dataFiles) {
      groupOf.put(file.location(), partitionedByKeys ? file.specId() + "/" + file.partition() : "");
    }
    List<String> lines = new ArrayList<>();
    lines.add(NewFileRepeats.verdict(
        spark, table, dataFiles, found, groupOf, () -> layout(table, joinedKeyColumns, sequenceColumn, true), maxRows));
    lines.addAll(unwritten(found));
    return String.join(LiveFiles.SEPARATOR, lines);
  }

  /** One new file's smallest and largest key (null: no entry) and whether a key repeats in it. */
  static final class FileKeys implements Serializable {
    private static final long serialVersionUID = 1L;
    final String location;
    final byte[] low;
    final byte[] high;
    final boolean repeats;
    final String unwritten; // why the entry could not be stored, or null

    FileKeys(String location, byte[] low, byte[] high, boolean repeats, String unwritten) {
      this.location = location;
      this.low = low;
      this.high = high;
      this.repeats = repeats;
      this.unwritten = unwritten;
    }
  }

  private static final class KeysOfFile implements Function<FileToProbe, FileKeys> {
    private static final long serialVersionUID = 1L;
    private final Broadcast<Table> table;
    private final Layout layout;
    private final long maxRows;

    KeysOfFile(Broadcast<Table> table, Layout layout, long maxRows) {
      this.table = table;
      this.layout = layout;
      this.maxRows = maxRows;
    }

    @Override
    public FileKeys call(FileToProbe file) {
      Found found = entryFor(table.value(), file, layout, maxRows);
      KeyIndexEntry entry = found.entry;
      if (entry == null || entry.size() == 0) {
        return new FileKeys(file.location, null, null, false, found.unwritten);
      }
      boolean repeats = false;
      for (int i = 1; i < entry.size() && !repeats; i++) {
        repeats = entry.compare(i - 1, entry, i) == 0;
      }
      return new FileKeys(file.location, entry.keyBytes(0), entry.keyBytes(entry.size() - 1), repeats, found.unwritten);
    }
  }

  /**
   * {@link #indexNewFiles} on a thread of its own, started as soon as a load has written its files
   * (before its commit), so the commit runs while the files are indexed; {@code get()} returns
   * its result. The table is copied here, on the caller's thread, so the commit may refresh the
   * original meanwhile.
   */
  public static Future<String> indexNewFilesInBackground(
      SparkSession spark, Table table, List<DataFile> dataFiles, String joinedKeyColumns, String sequenceColumn, long maxRows) {
    Table copy = SerializableTable.copyOf(table);
    List<DataFile> files = new ArrayList<>(dataFiles);
    FutureTask<String> task = new FutureTask<>(() -> indexNewFiles(spark, copy, files, joinedKeyColumns, sequenceColumn, maxRows));
    Thread thread = new Thread(task, "doris-key-index");
    thread.setDaemon(true);
    thread.start();
    return task;
  }

  private static void remember(String key, KeyIndexEntry entry, long maxRows) {
    synchronized (LOCK) {
      KeyIndexEntry previous = CACHE.put(key, entry);
      if (previous != null) {
        cachedRows -= previous.weight();
      }
      cachedRows += entry.weight();
      var oldest = CACHE.entrySet().iterator();
      while (cachedRows > maxRows && oldest.hasNext()) {
        Map.Entry<String, KeyIndexEntry> evicted = oldest.next();
        if (evicted.getKey().equals(key)) {
          continue; // the entry in use stays, even alone over the budget
        }
        cachedRows -= evicted.getValue().weight();
        oldest.remove();
      }
    }
  }

  static FileHits probe(
      String location, KeyIndexEntry entry, BatchKeys batch, Source source, String rejected, String unwritten,
      PositionDeleteIndex deleted, boolean keysPerHit) {
    Positions upserts = new Positions();
    Positions deletes = new Positions();
    boolean sequence = batch.sequences != null && entry.hasSequences();
    IntList storedKeys = new IntList();
    LongList storedSequences = new LongList();
    IntList liveKeys = new IntList();
    LongList livePositions = new LongList();
    RoaringBitmap liveKeySet = new RoaringBitmap();
    boolean repeatsLiveKey = false;
    int size = entry.size();
    if (size > 0) {
      // Only the batch keys inside this file's [min, max]; for each, every equal key of the file.
      int from = batchLowerBound(batch, 0, entry, 0);
      int start = 0;
      for (int i = from; i < batch.count(); i++) {
        if (entry.compare(size - 1, batch, i) < 0) {
          break; // past the file's largest key
        }
        start = entry.lowerBound(start, batch, i);
        boolean anySequence = false;
        long largest = Long.MIN_VALUE;
        int liveRows = 0;
        for (int j = start; j < size && entry.compare(j, batch, i) == 0; j++) {
          int position = entry.positions[j];
          boolean live = deleted == null || !deleted.isDeleted(position);
          liveRows += live ? 1 : 0;
          if (sequence) {
            if (!entry.nullSequences[j]) {
              largest = anySequence ? Math.max(largest, entry.sequences[j]) : entry.sequences[j];
              anySequence = true;
            }
            if (live) {
              liveKeys.add(i);
              livePositions.add(position);
            }
          } else if (live) {
            (batch.deletes[i] == 1 ? deletes : upserts).add(position);
            if (keysPerHit) {
              liveKeys.add(i);
              livePositions.add(position);
            }
          }
        }
        if (anySequence) {
          storedKeys.add(i);
          storedSequences.add(largest);
        }
        if (liveRows > 0) {
          liveKeySet.add(i);
          repeatsLiveKey |= liveRows > 1;
        }
      }
    }
    liveKeySet.runOptimize();
    return new FileHits(location, true, source, rejected, unwritten, upserts, deletes,
        storedKeys.toArray(), storedSequences.toArray(), liveKeys.toArray(), livePositions.toArray(), liveKeySet, repeatsLiveKey);
  }

  /** First batch index in [from, count) whose key is >= the entry's key {@code index}. */
  static int batchLowerBound(BatchKeys batch, int from, KeyIndexEntry entry, int index) {
    int low = from;
    int high = batch.count();
    while (low < high) {
      int middle = (low + high) >>> 1;
      if (entry.compare(index, batch, middle) > 0) {
        low = middle + 1;
      } else {
        high = middle;
      }
    }
    return low;
  }

  static final class IntList {
    private int[] values = new int[8];
    private int size;

    void add(int value) {
      if (size == values.length) {
        values = Arrays.copyOf(values, size * 2);
      }
      values[size++] = value;
    }

    int[] toArray() {
      return Arrays.copyOf(values, size);
    }
  }

  static final class LongList {
    private long[] values = new long[8];
    private int size;

    void add(long value) {
      if (size == values.length) {
        values = Arrays.copyOf(values, size * 2);
      }
      values[size++] = value;
    }

    long[] toArray() {
      return Arrays.copyOf(values, size);
    }
  }

  /** First index in [from, to) whose value is >= key. */
  static int lowerBound(long[] values, int from, int to, long key) {
    int low = from;
    int high = to;
    while (low < high) {
      int middle = (low + high) >>> 1;
      if (values[middle] < key) {
        low = middle + 1;
      } else {
        high = middle;
      }
    }
    return low;
  }

  static final class Positions {
    // Roaring: the positions travel to the driver and on to Python several times smaller than
    // as plain longs, and py4j moves bytes slowly.
    private final Roaring64NavigableMap values = new Roaring64NavigableMap();

    void add(long position) {
      values.addLong(position);
    }

    byte[] portableRoaring() {
      values.runOptimize();
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (DataOutputStream out = new DataOutputStream(bytes)) {
        values.serializePortable(out);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return bytes.toByteArray();
    }
  }

  /** Sorts {@code keys} ascending, moving {@code payload} along (quicksort, insertion for short runs). */
  static void sort(long[] keys, int[] payload) {
    sort(keys, payload, 0, keys.length - 1);
  }

  private static void sort(long[] keys, int[] payload, int low, int high) {
    while (high - low > 16) {
      int middle = (low + high) >>> 1;
      // Median of three as the pivot keeps sorted and reversed runs from going quadratic.
      if (keys[middle] < keys[low]) {
        swap(keys, payload, middle, low);
      }
      if (keys[high] < keys[low]) {
        swap(keys, payload, high, low);
      }
      if (keys[high] < keys[middle]) {
        swap(keys, payload, high, middle);
      }
      long pivot = keys[middle];
      int i = low;
      int j = high;
      while (i <= j) {
        while (keys[i] < pivot) {
          i++;
        }
        while (keys[j] > pivot) {
          j--;
        }
        if (i <= j) {
          swap(keys, payload, i++, j--);
        }
      }
      // Recurse into the smaller side, loop on the larger: stack depth stays logarithmic.
      if (j - low < high - i) {
        sort(keys, payload, low, j);
        low = i;
      } else {
        sort(keys, payload, i, high);
        high = j;
      }
    }
    for (int i = low + 1; i <= high; i++) {
      long key = keys[i];
      int value = payload[i];
      int j = i - 1;
      while (j >= low && keys[j] > key) {
        keys[j + 1] = keys[j];
        payload[j + 1] = payload[j];
        j--;
      }
      keys[j + 1] = key;
      payload[j + 1] = value;
    }
  }

  private static void swap(long[] keys, int[] payload, int a, int b) {
    long key = keys[a];
    keys[a] = keys[b];
    keys[b] = key;
    int value = payload[a];
    payload[a] = payload[b];
    payload[b] = value;
  }
}
