package io.icebergdoris.iceberg;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SerializableTable;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.spark.data.SparkParquetReaders;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.Function;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.roaringbitmap.longlong.Roaring64NavigableMap;

/**
 * A primary-key index for unique-key loads, in the spirit of Doris's per-segment primary key
 * index: for each data file, its keys sorted with their row positions and their min/max. A load
 * probes the batch's keys into the index of every candidate file (binary search, files whose
 * range misses the batch skipped) instead of scanning and joining the table's key column.
 *
 * <p>The index is derived data: an entry is built from the file itself (its key column, read by
 * Iceberg field id) the first time a probe needs it, and kept in the memory of the JVM that built
 * it (the executor), least recently used first out beyond a row budget. Data files never change,
 * so an entry keyed by file location can never be stale; its positions are physical (deleted rows
 * included), and each probe drops those the file's delete files of the looked-up snapshot mark.
 */
public final class KeyIndex {

  /** Keys of one batch, sorted, with whether each one is a delete; built on the driver. */
  public static final class BatchKeys implements Serializable {
    private static final long serialVersionUID = 1L;
    final long[] keys;
    final int[] deletes;

    BatchKeys(long[] keys, int[] deletes) {
      this.keys = keys;
      this.deletes = deletes;
    }

    public int count() {
      return keys.length;
    }

    public long min() {
      return keys[0];
    }

    public long max() {
      return keys[keys.length - 1];
    }

    /** Whether some key occurs more than once (the batch was collected before de-duplication). */
    public boolean hasDuplicates() {
      for (int i = 1; i < keys.length; i++) {
        if (keys[i] == keys[i - 1]) {
          return true;
        }
      }
      return false;
    }

    /** The keys as decimal strings joined by commas (for a short IN list). */
    public String joined() {
      StringBuilder text = new StringBuilder();
      for (int i = 0; i < keys.length; i++) {
        if (i > 0) {
          text.append(',');
        }
        text.append(keys[i]);
      }
      return text.toString();
    }
  }

  /** What probing one data file found. */
  public static final class FileHits implements Serializable {
    private static final long serialVersionUID = 1L;
    final String location;
    final boolean indexable; // false: a NULL key in the file (written by another engine)
    final boolean built; // the entry was built for this probe (not in the executor's cache)
    final long hitCount; // positions in upserts and deletes together
    final byte[] upserts; // live positions of keys the batch upserts (portable 64-bit Roaring)
    final byte[] deletes; // live positions of keys the batch deletes (portable 64-bit Roaring)

    FileHits(String location, boolean indexable, boolean built, Positions upserts, Positions deletes) {
      this.location = location;
      this.indexable = indexable;
      this.built = built;
      this.hitCount = upserts.values.getLongCardinality() + deletes.values.getLongCardinality();
      this.upserts = upserts.portableRoaring();
      this.deletes = deletes.portableRoaring();
    }
  }

  /** The result of one lookup, read from Python. */
  public static final class Lookup {
    private final Map<String, FileHits> hits = new LinkedHashMap<>();

    Lookup(List<FileHits> probed) {
      for (FileHits file : probed) {
        hits.put(file.location, file);
      }
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

    public int probedFiles() {
      return hits.size();
    }

    public int builtFiles() {
      int built = 0;
      for (FileHits file : hits.values()) {
        built += file.built ? 1 : 0;
      }
      return built;
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
  }

  /** Sorted keys of one data file with their positions. */
  static final class FileKeys {
    final long[] keys;
    final int[] positions;

    FileKeys(long[] keys, int[] positions) {
      this.keys = keys;
      this.positions = positions;
    }
  }

  private static final Object LOCK = new Object();
  // Access-ordered: iteration starts at the least recently used entry.
  private static final LinkedHashMap<String, FileKeys> CACHE = new LinkedHashMap<>(64, 0.75f, true);
  private static long cachedRows = 0;

  private KeyIndex() {}

  /**
   * Collects the batch's keys (first column, any integral type) and delete flags (second
   * column, boolean) into the driver JVM, sorted. A probe needs one row per key: a caller that
   * collects rows not yet de-duplicated checks {@link BatchKeys#hasDuplicates()}.
   */
  public static BatchKeys batchKeys(Dataset<Row> batch) {
    List<Row> rows = batch.collectAsList();
    long[] keys = new long[rows.size()];
    int[] deletes = new int[rows.size()];
    for (int i = 0; i < keys.length; i++) {
      Row row = rows.get(i);
      keys[i] = ((Number) row.get(0)).longValue();
      deletes[i] = !row.isNullAt(1) && row.getBoolean(1) ? 1 : 0;
    }
    sort(keys, deletes);
    return new BatchKeys(keys, deletes);
  }

  /**
   * Probes {@code batch} into the index of each data file in {@code joinedLocations}, one Spark
   * task per group of files; entries missing in the executor that runs a task are built there.
   */
  public static Lookup lookup(
      SparkSession spark, Table table, LiveFiles plan, String keyColumn, BatchKeys batch, long maxRows) {
    List<FileToProbe> files = new ArrayList<>();
    for (DataFile file : plan.dataFiles()) {
      files.add(new FileToProbe(file.location(), plan.deletes(file.location())));
    }
    if (files.isEmpty() || batch.keys.length == 0) {
      return new Lookup(new ArrayList<>());
    }
    Schema keySchema = table.schema().select(keyColumn);
    Type type = keySchema.columns().get(0).type();
    if (type.typeId() != Type.TypeID.LONG && type.typeId() != Type.TypeID.INTEGER) {
      throw new IllegalArgumentException("The key index covers integer keys only, not " + type);
    }
    JavaSparkContext context = JavaSparkContext.fromSparkContext(spark.sparkContext());
    Broadcast<Table> serializable = context.broadcast(SerializableTable.copyOf(table));
    Broadcast<BatchKeys> keys = context.broadcast(batch);
    try {
      int slices = Math.max(1, Math.min(files.size(), context.defaultParallelism() * 2));
      List<FileHits> probed =
          context.parallelize(files, slices).map(new Probe(serializable, keys, keySchema, maxRows)).collect();
      return new Lookup(probed);
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

  /** Forgets every entry of this JVM. */
  public static void clear() {
    synchronized (LOCK) {
      CACHE.clear();
      cachedRows = 0;
    }
  }

  /** A data file to probe with the delete files that apply to it in the looked-up snapshot. */
  static final class FileToProbe implements Serializable {
    private static final long serialVersionUID = 1L;
    final String location;
    final List<DeleteFile> deletes;

    FileToProbe(String location, List<DeleteFile> deletes) {
      this.location = location;
      this.deletes = new ArrayList<>(deletes);
    }
  }

  private static final class Probe implements Function<FileToProbe, FileHits> {
    private static final long serialVersionUID = 1L;
    private final Broadcast<Table> table;
    private final Broadcast<BatchKeys> batch;
    private final Schema keySchema;
    private final long maxRows;

    Probe(Broadcast<Table> table, Broadcast<BatchKeys> batch, Schema keySchema, long maxRows) {
      this.table = table;
      this.batch = batch;
      this.keySchema = keySchema;
      this.maxRows = maxRows;
    }

    @Override
    public FileHits call(FileToProbe file) {
      String location = file.location;
      FileKeys entry;
      synchronized (LOCK) {
        entry = CACHE.get(location);
      }
      boolean built = entry == null;
      if (built) {
        entry = build(table.value(), location, keySchema);
        if (entry == null) {
          return new FileHits(location, false, true, new Positions(), new Positions());
        }
        remember(location, entry, maxRows);
      }
      PositionDeleteIndex deleted = null;
      if (!file.deletes.isEmpty()) {
        // The file's DV (or position delete files): the index holds physical rows, hits must be live.
        Table files = table.value();
        deleted = new BaseDeleteLoader(delete -> files.io().newInputFile(delete)).loadPositionDeletes(file.deletes, location);
      }
      return probe(location, entry, batch.value(), built, deleted);
    }
  }

  private static void remember(String location, FileKeys entry, long maxRows) {
    synchronized (LOCK) {
      if (CACHE.put(location, entry) == null) {
        cachedRows += entry.keys.length;
      }
      var oldest = CACHE.entrySet().iterator();
      while (cachedRows > maxRows && oldest.hasNext()) {
        Map.Entry<String, FileKeys> evicted = oldest.next();
        if (evicted.getKey().equals(location)) {
          continue; // the entry in use stays, even alone over the budget
        }
        cachedRows -= evicted.getValue().keys.length;
        oldest.remove();
      }
    }
  }

  /** Reads the key column of one data file; null if some key is NULL. */
  static FileKeys build(Table table, String location, Schema keySchema) {
    boolean isLong = keySchema.columns().get(0).type().typeId() == Type.TypeID.LONG;
    long[] keys = new long[1 << 16];
    int count = 0;
    boolean sorted = true;
    try (CloseableIterable<InternalRow> rows =
        Parquet.read(table.io().newInputFile(location))
            .project(keySchema)
            .createReaderFunc(fileSchema -> SparkParquetReaders.buildReader(keySchema, fileSchema))
            .reuseContainers()
            .build()) {
      for (InternalRow row : rows) {
        if (row.isNullAt(0)) {
          return null;
        }
        long key = isLong ? row.getLong(0) : row.getInt(0);
        if (count == keys.length) {
          keys = Arrays.copyOf(keys, keys.length * 2);
        }
        if (count > 0 && key < keys[count - 1]) {
          sorted = false;
        }
        keys[count++] = key;
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    keys = Arrays.copyOf(keys, count);
    int[] positions = new int[count];
    for (int i = 0; i < count; i++) {
      positions[i] = i;
    }
    if (!sorted) {
      sort(keys, positions);
    }
    return new FileKeys(keys, positions);
  }

  static FileHits probe(String location, FileKeys entry, BatchKeys batch, boolean built, PositionDeleteIndex deleted) {
    long[] keys = entry.keys;
    Positions upserts = new Positions();
    Positions deletes = new Positions();
    if (keys.length > 0) {
      // Only the batch keys inside this file's [min, max]; for each, every equal key of the file.
      int from = lowerBound(batch.keys, 0, batch.keys.length, keys[0]);
      int to = lowerBound(batch.keys, from, batch.keys.length, keys[keys.length - 1]);
      if (to < batch.keys.length && batch.keys[to] == keys[keys.length - 1]) {
        to++;
      }
      int start = 0;
      for (int i = from; i < to; i++) {
        long key = batch.keys[i];
        start = lowerBound(keys, start, keys.length, key);
        for (int j = start; j < keys.length && keys[j] == key; j++) {
          int position = entry.positions[j];
          if (deleted == null || !deleted.isDeleted(position)) {
            (batch.deletes[i] == 1 ? deletes : upserts).add(position);
          }
        }
      }
    }
    return new FileHits(location, true, built, upserts, deletes);
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
