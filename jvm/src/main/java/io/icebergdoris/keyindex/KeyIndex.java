package io.icebergdoris.keyindex;

import io.icebergdoris.iceberg.LiveFiles;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.SerializableTable;
import org.apache.iceberg.Table;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;

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
 *
 * <p>{@code KeyIndex} is the index's one entry point: Python ({@code iceberg_doris.engine.key_index})
 * calls nothing else. Plain data crosses as typed JSON ({@link IndexRequest} in; answers out, read
 * into the dataclasses of {@code iceberg_doris/engine/key_index/wire.py}); the index's own objects
 * (a batch's keys, a lookup, a sequence decision, rows read by position) cross as handles Python
 * passes back to the methods here.
 */
public final class KeyIndex {
  private KeyIndex() {}

  /** The request Python sent as JSON; see {@link IndexRequest}. */
  public static IndexRequest request(String json) {
    return IndexRequest.fromJson(json);
  }

  // ------------------------------------------------------------------------------ a batch's keys

  /**
   * Collects the batch's keys (its first columns, the request's key columns in that order), delete
   * flags (the next column) and, with a sequence column, sequence values (the one after) into this
   * (the driver's) JVM, sorted by key; see {@link BatchKeys#collect}.
   */
  public static BatchKeys collectBatchKeys(Dataset<Row> batch, Table table, IndexRequest request) {
    return BatchKeys.collect(batch, table, request);
  }

  /**
   * For Python ({@code wire.BatchSummary}): the batch's key {@code count}, whether a key occurs
   * twice ({@code has_duplicates}), the first key column's {@code first_column_range}
   * ([smallest, largest], or [] for no keys) and, when there are at most {@code valuesUpTo} keys,
   * its {@code first_column_values} in key order (else null); values as {@link BatchKeys#firstColumnValues}.
   */
  public static String describeBatch(BatchKeys keys, int valuesUpTo) {
    return Wire.json(new Answers.BatchSummary(
        keys.count(), keys.hasDuplicates(), keys.firstColumnRange(), keys.count() <= valuesUpTo ? keys.firstColumnValues() : null));
  }

  /**
   * The reader of {@link #collectBatchKeys}'s columns for a pass over rows that collects the keys
   * on its way ({@code io.icebergdoris.spark.GroupCounts}); null when a column's type needs
   * {@link #collectBatchKeys} itself. {@code keysSchema}: those columns.
   */
  public static BatchKeyReader batchKeyReader(Table table, StructType keysSchema, IndexRequest request) {
    return BatchKeys.reader(table, keysSchema, request);
  }

  /** What {@link #collectBatchKeys} returns, from the chunks a pass read with {@link #batchKeyReader}. */
  public static BatchKeys batchKeys(
      Table table, StructType keysSchema, IndexRequest request, BatchKeyReader reader, List<BatchKeyReader.Chunk> chunks) {
    return BatchKeys.fromChunks(table, keysSchema, request, reader, chunks);
  }

  // ------------------------------------------------------------------------------------ lookups

  /**
   * Probes {@code batch} into the entry of each data file of {@code plan}, one Spark task per
   * group of files; entries missing in the executor that runs a task are read from their files
   * there, or built and (when the request persists) written. With the request's
   * {@code keys_per_hit}, each live hit keeps its batch key (as sequence tables always do), for
   * {@link #readLiveRows} to skip key columns.
   */
  public static Lookup lookup(SparkSession spark, Table table, LiveFiles plan, BatchKeys batch, IndexRequest request) {
    List<FileToProbe> files = new ArrayList<>();
    for (DataFile file : plan.dataFiles()) {
      files.add(new FileToProbe(file, plan.deletes(file.location())));
    }
    Layout layout = Layout.of(table, request, request.persist());
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
          context.parallelize(files, slices).map(new Probe(serializable, keys, layout, request.maxRows(), request.keysPerHit())).collect();
      return new Lookup(probed, spark, batch, layout);
    } finally {
      serializable.destroy();
      keys.destroy();
    }
  }

  /** What {@code lookup} found, as JSON; see {@link Lookup#answer()}. */
  public static String lookupAnswer(Lookup lookup) {
    return Wire.json(lookup.answer());
  }

  /** Sequence tables: the live rows of the batch's keys, as the scan finds them (keys, _file, _pos). */
  public static Dataset<Row> liveRows(Lookup lookup) {
    return lookup.liveRows();
  }

  /** Sequence tables: per batch key, the largest stored sequence value (keys, then {@code column}). */
  public static Dataset<Row> storedSequences(Lookup lookup, String column) {
    return lookup.storedSequences(column);
  }

  /** Sequence tables, full-row loads: which versions win; see {@link Lookup#decideBySequence}. */
  public static SequenceDecision decideBySequence(Lookup lookup) {
    return lookup.decideBySequence();
  }

  /** The decision's positions and counts, as JSON; see {@link SequenceDecision#answer()}. */
  public static String decisionAnswer(SequenceDecision decision) {
    return Wire.json(decision.answer());
  }

  /** The keys whose batch version loses (key columns), or null when every version wins. */
  public static Dataset<Row> losingKeys(SequenceDecision decision) {
    return decision.losingKeys();
  }

  /**
   * The live rows of the batch's keys with the stored values of {@code columnsJson} (a JSON array
   * of current column names, the key columns first), read by position on the executors; see
   * {@link Lookup#readLiveRows}. The rows stay persisted until {@link #release}.
   */
  public static KeyIndexRows.Read readLiveRows(Lookup lookup, Table table, String columnsJson) {
    List<String> columns = new ArrayList<>();
    com.fasterxml.jackson.databind.JsonNode node = Wire.parseArray(columnsJson);
    for (com.fasterxml.jackson.databind.JsonNode column : node) {
      columns.add(column.asText());
    }
    return lookup.readLiveRows(table, columns);
  }

  /** The rows {@link #readLiveRows} read: the columns, then {@code _file} and {@code _pos}. */
  public static Dataset<Row> rowsFrame(KeyIndexRows.Read rows) {
    return rows.frame();
  }

  public static long rowsCount(KeyIndexRows.Read rows) {
    return rows.count();
  }

  /** Unpersists the rows {@link #readLiveRows} read. */
  public static void release(KeyIndexRows.Read rows) {
    rows.release();
  }

  // ------------------------------------------------------------------------- a load's new files

  /**
   * Starts building, storing and caching the entries of {@code dataFiles} (a load's new files)
   * on a JVM thread of its own, so the load commits meanwhile; {@link #awaitIndexing} waits.
   */
  public static Future<List<String>> indexNewFilesInBackground(
      SparkSession spark, Table table, List<DataFile> dataFiles, IndexRequest request) {
    return NewFiles.indexNewFilesInBackground(spark, table, dataFiles, request);
  }

  /**
   * Waits for {@link #indexNewFilesInBackground}; for Python ({@code wire.IndexingAnswer}):
   * {@code problems}, one text per entry that could not be stored ("location: reason").
   */
  public static String awaitIndexing(Future<List<String>> indexing) throws InterruptedException, ExecutionException {
    return Wire.json(new Answers.IndexingAnswer(indexing.get()));
  }

  /** Whether a key repeats among a load's new files, as JSON; see {@link NewFiles#newFilesRepeatKeys}. */
  public static String newFilesRepeatKeys(SparkSession spark, Table table, List<DataFile> dataFiles, IndexRequest request) {
    return Wire.json(NewFiles.newFilesRepeatKeys(spark, table, dataFiles, request));
  }

  // ---------------------------------------------------------------------- caches, stored entries

  /** Keys cached in this JVM (for tests and diagnostics). */
  public static long cachedRows() {
    return EntryCache.cachedRows();
  }

  /** Bytes the entries cached in this JVM hold (for diagnostics and the benchmarks' memory tables). */
  public static long cachedBytes() {
    return EntryCache.cachedBytes();
  }

  public static int cachedFiles() {
    return EntryCache.cachedFiles();
  }

  /** Forgets every entry of this JVM (its stored files stay). */
  public static void clear() {
    EntryCache.clear();
  }

  /** Deletes {@code table}'s stored entries of data files not in {@code referenced}; see {@link KeyIndexFiles#removeOrphans}. */
  public static long removeOrphanEntries(Table table, Dataset<Row> referenced) {
    return KeyIndexFiles.removeOrphans(table, referenced);
  }

  /** The folder of {@code table}'s stored entries. */
  public static String entryFolder(Table table) {
    return KeyIndexFiles.folder(table.location());
  }

  /** Hit files whose rows were read by position with their keys taken from the probe, in this JVM (for tests). */
  public static long filesWithKeysFromProbe() {
    return KeyIndexRows.filesWithKeysFromProbe();
  }

  /** Hit files whose values were decoded from their pages ({@link HitValues}), in this JVM (for tests). */
  public static long filesReadFromPages() {
    return KeyIndexRows.filesReadFromPages();
  }
}
