package io.icebergdoris.keyindex;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.SerializableTable;
import org.apache.iceberg.Table;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.Function;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.SparkSession;

/** Entries of a load's new data files: built, stored and cached while the load commits, and whether a key repeats among the files. */
final class NewFiles {
  private NewFiles() {}

  /**
   * Builds, stores and caches the entries of data files a load has just written (not committed
   * yet), one Spark task per group of files: the load that writes a file indexes it while its rows
   * are at hand, so no later lookup (in this session or another) builds it on its own latency path.
   * Returns one text per file left unindexed ("location: reason"); a file with a NULL key is
   * skipped silently (lookups scan it).
   */
  static List<String> indexNewFiles(SparkSession spark, Table table, List<DataFile> dataFiles, IndexRequest request) {
    return unwritten(indexFiles(spark, table, dataFiles, request));
  }

  /** Builds (or finds) and caches the entries of {@code dataFiles}, one Spark task per group of files. */
  private static List<FileKeys> indexFiles(SparkSession spark, Table table, List<DataFile> dataFiles, IndexRequest request) {
    if (dataFiles.isEmpty()) {
      return new ArrayList<>();
    }
    List<FileToProbe> files = new ArrayList<>();
    for (DataFile file : dataFiles) {
      files.add(new FileToProbe(file, new ArrayList<>()));
    }
    Layout layout = Layout.of(table, request, true);
    JavaSparkContext context = JavaSparkContext.fromSparkContext(spark.sparkContext());
    Broadcast<Table> serializable = context.broadcast(SerializableTable.copyOf(table));
    try {
      int slices = Math.max(1, Math.min(files.size(), context.defaultParallelism() * 2));
      return context.parallelize(files, slices).map(new KeysOfFile(serializable, layout, request.maxRows())).collect();
    } finally {
      serializable.destroy();
    }
  }

  /** One text per file whose entry could not be stored: "location: entry not stored (reason)". */
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
   * are merged in key order ({@link NewFileRepeats}). For Python ({@code wire.RepeatsAnswer}):
   * {@code verdict}, and {@code problems}, the entries that could not be stored as
   * {@link #indexNewFiles} reports them.
   */
  static Answers.RepeatsAnswer newFilesRepeatKeys(SparkSession spark, Table table, List<DataFile> dataFiles, IndexRequest request) {
    List<FileKeys> found = indexFiles(spark, table, dataFiles, request);
    java.util.Set<Integer> keyIds = new java.util.HashSet<>();
    for (String name : request.keyColumns()) {
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
    String verdict = NewFileRepeats.verdict(
        spark, table, dataFiles, found, groupOf, () -> Layout.of(table, request, true), request.maxRows());
    return new Answers.RepeatsAnswer(verdict, unwritten(found));
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
      EntryCache.Found found = EntryCache.entryFor(table.value(), file, layout, maxRows);
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
  static Future<List<String>> indexNewFilesInBackground(SparkSession spark, Table table, List<DataFile> dataFiles, IndexRequest request) {
    Table copy = SerializableTable.copyOf(table);
    List<DataFile> files = new ArrayList<>(dataFiles);
    FutureTask<List<String>> task = new FutureTask<>(() -> indexNewFiles(spark, copy, files, request));
    Thread thread = new Thread(task, "doris-key-index");
    thread.setDaemon(true);
    thread.start();
    return task;
  }
}
