package io.icebergdoris.iceberg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.functions;

/**
 * The live data files of one snapshot with the delete files that apply to each, planned in the
 * JVM. Python reads the plan in a handful of py4j calls: walking Iceberg's scan tasks from Python
 * costs several round trips per file and an exception-ended iteration per delete list.
 */
public final class LiveFiles {

  /** Separates locations in the strings handed to Python; it cannot occur in a file URI. */
  public static final String SEPARATOR = "\n";

  private final Map<String, DataFile> dataFiles = new LinkedHashMap<>();
  private final Map<String, List<DeleteFile>> positionDeletes = new LinkedHashMap<>();
  private final Map<String, List<DeleteFile>> allDeletes = new LinkedHashMap<>();
  private final Map<String, DeleteFile> distinctDeletes = new LinkedHashMap<>();

  private LiveFiles() {}

  /** Plans the files of {@code snapshotId} that may hold rows matching {@code filter} (null: all). */
  public static LiveFiles plan(Table table, long snapshotId, Expression filter) {
    TableScan scan = table.newScan().useSnapshot(snapshotId);
    if (filter != null) {
      scan = scan.filter(filter);
    }
    LiveFiles result = new LiveFiles();
    try (CloseableIterable<FileScanTask> tasks = scan.planFiles()) {
      for (FileScanTask task : tasks) {
        result.add(task);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return result;
  }

  private void add(FileScanTask task) {
    String location = task.file().location();
    dataFiles.put(location, task.file());
    List<DeleteFile> positions = new ArrayList<>();
    for (DeleteFile delete : task.deletes()) {
      if (delete.content() == FileContent.POSITION_DELETES) {
        positions.add(delete);
      }
      // Deletion vectors share one Puffin file: a delete file is its location plus blob offset.
      distinctDeletes.putIfAbsent(delete.location() + "@" + delete.contentOffset(), delete);
    }
    if (!positions.isEmpty()) {
      positionDeletes.put(location, positions);
    }
    if (!task.deletes().isEmpty()) {
      allDeletes.put(location, new ArrayList<>(task.deletes()));
    }
  }

  public int size() {
    return dataFiles.size();
  }

  /** Data file locations, in plan order, joined by {@link #SEPARATOR}. */
  public String locations() {
    return String.join(SEPARATOR, dataFiles.keySet());
  }

  /** Locations of the data files that have position deletes or a deletion vector. */
  public String locationsWithPositionDeletes() {
    return String.join(SEPARATOR, positionDeletes.keySet());
  }

  public DataFile dataFile(String location) {
    return dataFiles.get(location);
  }

  /**
   * The planned data files at {@code locations} (joined by {@link #SEPARATOR}), in that order: one
   * round trip for a list that a large upsert would otherwise fetch file by file.
   */
  public List<DataFile> dataFiles(String locations) {
    List<DataFile> named = new ArrayList<>();
    for (String location : splitLocations(locations)) {
      DataFile file = dataFiles.get(location);
      if (file == null) {
        throw new IllegalArgumentException(location + " is not a planned data file");
      }
      named.add(file);
    }
    return named;
  }

  /** Locations joined by {@link #SEPARATOR} as a list (empty text: none). */
  public static List<String> splitLocations(String joined) {
    return joined.isEmpty() ? new ArrayList<>() : new ArrayList<>(List.of(joined.split(SEPARATOR)));
  }

  /** The position delete files / deletion vector of one data file (empty if none). */
  public List<DeleteFile> positionDeletes(String location) {
    return positionDeletes.getOrDefault(location, Collections.emptyList());
  }

  /** Locations of the data files that have delete files of any kind. */
  public String locationsWithDeletes() {
    return String.join(SEPARATOR, allDeletes.keySet());
  }

  /** Every delete file (of any kind) that applies to one data file. */
  public List<DeleteFile> deletes(String location) {
    return allDeletes.getOrDefault(location, Collections.emptyList());
  }

  /** Whether some planned delete file is an equality delete file (written by another engine). */
  public boolean hasEqualityDeletes() {
    for (DeleteFile delete : distinctDeletes.values()) {
      if (delete.content() == FileContent.EQUALITY_DELETES) {
        return true;
      }
    }
    return false;
  }

  /**
   * Each planned data file's data sequence number (the commit that wrote its rows; -1 in a format
   * v1 table) as a column over {@code fileColumn}, which holds planned locations: a literal map,
   * so ordering the several live rows a plain write may have given one key by the commit that
   * wrote them costs no join and no Spark job. {@code locations}: the files that matter, joined by
   * {@link #SEPARATOR}; empty: every planned file.
   */
  public Column fileOrder(String fileColumn, String locations) {
    List<String> named = locations.isEmpty() ? new ArrayList<>(dataFiles.keySet()) : splitLocations(locations);
    String[] keys = new String[named.size()];
    long[] orders = new long[named.size()];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = named.get(i);
      DataFile file = dataFiles.get(keys[i]);
      Long order = file == null ? null : file.dataSequenceNumber();
      orders[i] = order == null ? -1L : order;
    }
    return functions.element_at(
        functions.map_from_arrays(functions.lit(keys), functions.lit(orders)), functions.col(fileColumn));
  }

  public List<DataFile> dataFiles() {
    return new ArrayList<>(dataFiles.values());
  }

  /** Every delete file that applies to some planned data file, each once. */
  public List<DeleteFile> deleteFiles() {
    return new ArrayList<>(distinctDeletes.values());
  }
}
