package io.icebergdoris.keyindex;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.roaringbitmap.RoaringBitmap;
import org.roaringbitmap.longlong.Roaring64NavigableMap;

/** The result of one lookup: Python reads it through {@link KeyIndex} (its {@link #answer()}, its rows). */
public final class Lookup {
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

  /**
   * What the lookup found, for Python ({@code wire.LookupAnswer}): {@code probed_files},
   * {@code built_files} and {@code read_files} (entries built from their data file, read from their
   * stored file; the rest came from executor caches), {@code unindexable} (files the index cannot
   * cover: a NULL key), {@code problems} (stored entries rejected or not written, one text each),
   * {@code one_live_row_per_key}, and {@code hits}: per probed file holding some key of the batch,
   * its {@code location} and the live positions of keys the batch upserts ({@code upserts}) and
   * deletes ({@code deletes}), each a base64 portable 64-bit Roaring bitmap.
   */
  Answers.LookupAnswer answer() {
    List<Answers.FilePositions> found = new ArrayList<>();
    List<String> unindexable = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    for (FileHits file : hits.values()) {
      if (!file.indexable) {
        unindexable.add(file.location);
      } else if (file.hitCount > 0) {
        found.add(Answers.FilePositions.of(file.location, file.upserts, file.deletes));
      }
      if (file.rejected != null) {
        problems.add(file.location + ": stored entry rejected (" + file.rejected + "), rebuilt from the data file");
      }
      if (file.unwritten != null) {
        problems.add(file.location + ": entry not stored (" + file.unwritten + ")");
      }
    }
    return new Answers.LookupAnswer(
        hits.size(), count(EntrySource.BUILT), count(EntrySource.READ), unindexable, problems, oneLiveRowPerKey(), found);
  }

  /**
   * Whether no batch key has more than one live row among the probed files (a table only
   * iceberg-doris writes; a plain INSERT can add a second): then the stored rows read by
   * position need no grouping per key.
   */
  boolean oneLiveRowPerKey() {
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

  private int count(EntrySource source) {
    int result = 0;
    for (FileHits file : hits.values()) {
      result += file.source == source ? 1 : 0;
    }
    return result;
  }

  /** Sequence tables: the live rows of the batch's keys, as the scan finds them (keys, _file, _pos). */
  Dataset<Row> liveRows() {
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
   * The live rows of the batch's keys with the stored values of {@code columns} (the key
   * columns first, then the columns the load merges with; current names), read by position from
   * the hit data files on the executors ({@link KeyIndexRows}): the projected columns, then
   * {@code _file} and {@code _pos}. Any key model, with or without a sequence column. Where the
   * probe kept each hit's batch key, the key columns are that key's values, not read.
   */
  KeyIndexRows.Read readLiveRows(Table table, List<String> columns) {
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
      Sorting.sort(sorted, keys);
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
    return KeyIndexRows.read(spark, table, files, columns, codec);
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
  SequenceDecision decideBySequence() {
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
    List<Answers.FilePositions> replaced = new ArrayList<>();
    long deletedRows = 0;
    for (FileHits file : hits.values()) {
      Positions upserts = new Positions();
      Positions deletes = new Positions();
      for (int i = 0; i < file.liveKeys.length; i++) {
        int key = file.liveKeys[i];
        if (wins[key]) {
          (batch.deletes[key] == 1 ? deletes : upserts).add(file.livePositions[i]);
        }
      }
      if (upserts.count() + deletes.count() == 0) {
        continue;
      }
      deletedRows += deletes.count();
      replaced.add(Answers.FilePositions.of(file.location, upserts.portableRoaring(), deletes.portableRoaring()));
    }
    Dataset<Row> losing = losers.isEmpty() ? null : spark.createDataFrame(losers, batch.keyType);
    return new SequenceDecision(replaced, deletedRows, anyDeleteWins, losing);
  }

  /**
   * Sequence tables: per batch key, the largest sequence value over every stored version (keys,
   * then the value as the sequence column's Spark type); keys without one are absent.
   */
  Dataset<Row> storedSequences(String column) {
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
