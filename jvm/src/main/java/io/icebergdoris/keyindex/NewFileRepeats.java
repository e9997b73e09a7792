package io.icebergdoris.keyindex;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.function.Supplier;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.SerializableTable;
import org.apache.iceberg.Table;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.Function;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.SparkSession;

/**
 * Whether a key occurs more than once among a load's new files, from their key-index entries.
 *
 * <p>Each entry is sorted, so a key repeated within a file shows as two equal neighbours. Files
 * that may share keys (one partition's) and whose key ranges do not overlap share none. Files
 * whose ranges overlap (a partition written by several tasks without a range distribution, as the
 * segments of one Doris load overlap) are merged in key order, one Spark task per cluster of
 * overlapping files, the entries taken from the executor's cache or their stored files as a lookup
 * takes them.
 */
final class NewFileRepeats {

  static final String DISTINCT = "distinct";
  static final String REPEATS = "repeats";
  static final String UNKNOWN = "unknown";

  private NewFileRepeats() {}

  /**
   * The verdict for {@code found} (the files' smallest and largest keys), the files grouped by
   * {@code groupOf} (files of different groups share no key); {@code layout} is resolved only
   * when some files overlap.
   */
  static String verdict(
      SparkSession spark, Table table, List<DataFile> dataFiles, List<FileKeys> found, Map<String, String> groupOf,
      Supplier<Layout> layout, long maxRows) {
    Map<String, List<FileKeys>> groups = new HashMap<>();
    for (FileKeys file : found) {
      if (file.low == null) {
        return UNKNOWN;
      }
      if (file.repeats) {
        return REPEATS;
      }
      groups.computeIfAbsent(groupOf.get(file.location), g -> new ArrayList<>()).add(file);
    }
    List<List<String>> clusters = new ArrayList<>();
    for (List<FileKeys> group : groups.values()) {
      clusters.addAll(overlapping(group));
    }
    if (clusters.isEmpty()) {
      return DISTINCT;
    }
    return shareKeys(spark, table, dataFiles, clusters, layout.get(), maxRows);
  }

  /** The clusters (of two files or more) of {@code group}'s files whose key ranges overlap. */
  static List<List<String>> overlapping(List<FileKeys> group) {
    List<FileKeys> files = new ArrayList<>(group);
    files.sort((a, b) -> Arrays.compareUnsigned(a.low, b.low));
    List<List<String>> clusters = new ArrayList<>();
    List<String> cluster = new ArrayList<>();
    byte[] high = null;
    for (FileKeys file : files) {
      if (high != null && Arrays.compareUnsigned(file.low, high) > 0) {
        if (cluster.size() > 1) {
          clusters.add(cluster);
        }
        cluster = new ArrayList<>();
        high = null;
      }
      cluster.add(file.location);
      high = high == null || Arrays.compareUnsigned(file.high, high) > 0 ? file.high : high;
    }
    if (cluster.size() > 1) {
      clusters.add(cluster);
    }
    return clusters;
  }

  private static String shareKeys(
      SparkSession spark, Table table, List<DataFile> dataFiles, List<List<String>> clusters, Layout layout, long maxRows) {
    Map<String, DataFile> byLocation = new HashMap<>();
    for (DataFile file : dataFiles) {
      byLocation.put(file.location(), file);
    }
    List<List<FileToProbe>> work = new ArrayList<>();
    for (List<String> cluster : clusters) {
      List<FileToProbe> files = new ArrayList<>();
      for (String location : cluster) {
        files.add(new FileToProbe(byLocation.get(location), new ArrayList<>()));
      }
      work.add(files);
    }
    JavaSparkContext context = JavaSparkContext.fromSparkContext(spark.sparkContext());
    Broadcast<Table> serializable = context.broadcast(SerializableTable.copyOf(table));
    try {
      int slices = Math.max(1, Math.min(work.size(), context.defaultParallelism() * 2));
      List<String> verdicts = context.parallelize(work, slices).map(new ClusterVerdict(serializable, layout, maxRows)).collect();
      return verdicts.contains(REPEATS) ? REPEATS : verdicts.contains(UNKNOWN) ? UNKNOWN : DISTINCT;
    } finally {
      serializable.destroy();
    }
  }

  private static final class ClusterVerdict implements Function<List<FileToProbe>, String> {
    private static final long serialVersionUID = 1L;
    private final Broadcast<Table> table;
    private final Layout layout;
    private final long maxRows;

    ClusterVerdict(Broadcast<Table> table, Layout layout, long maxRows) {
      this.table = table;
      this.layout = layout;
      this.maxRows = maxRows;
    }

    @Override
    public String call(List<FileToProbe> files) {
      List<KeyIndexEntry> entries = new ArrayList<>(files.size());
      for (FileToProbe file : files) {
        KeyIndexEntry entry = EntryCache.entryFor(table.value(), file, layout, maxRows).entry;
        if (entry == null) {
          return UNKNOWN;
        }
        entries.add(entry);
      }
      return anyKeyShared(entries) ? REPEATS : DISTINCT;
    }
  }

  /** Whether two of the sorted {@code entries} hold an equal key (merged in key order). */
  static boolean anyKeyShared(List<KeyIndexEntry> entries) {
    // A head is {entry, index}: advanced in place and put back, so the merge allocates per entry only.
    PriorityQueue<int[]> heads = new PriorityQueue<>((a, b) -> entries.get(a[0]).compare(a[1], entries.get(b[0]), b[1]));
    for (int e = 0; e < entries.size(); e++) {
      if (entries.get(e).size() > 0) {
        heads.add(new int[] {e, 0});
      }
    }
    int lastEntry = -1;
    int lastIndex = -1;
    while (!heads.isEmpty()) {
      int[] head = heads.poll();
      if (lastEntry >= 0 && entries.get(lastEntry).compare(lastIndex, entries.get(head[0]), head[1]) == 0) {
        return true;
      }
      lastEntry = head[0];
      lastIndex = head[1];
      if (head[1] + 1 < entries.get(head[0]).size()) {
        head[1]++;
        heads.add(head);
      }
    }
    return false;
  }
}
