package io.icebergdoris.iceberg;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.FileRewriteCoordinator;
import org.apache.iceberg.spark.SparkTableCache;

/**
 * Data files Spark wrote for a table without committing them: a rewrite write hands its files to
 * Iceberg's FileRewriteCoordinator (JVM memory, keyed by table and id) instead of committing a
 * snapshot. The write names its file set with the option {@code rewritten-file-scan-task-set-id}
 * or, with Iceberg 1.12 on Spark 4.1, by writing to the id itself, registered in Iceberg's
 * {@link SparkTableCache} ({@link #register}).
 */
public final class StagedDataFiles {

  private StagedDataFiles() {}

  /** Makes {@code fileSetId} a write target that stages files for {@code table}. */
  public static void register(Table table, String fileSetId) {
    SparkTableCache.get().add(fileSetId, table);
  }

  /** Forgets a {@link #register registered} write target. */
  public static void unregister(String fileSetId) {
    SparkTableCache.get().remove(fileSetId);
  }

  /** The files staged under {@code fileSetId}, forgotten by the coordinator once taken. */
  public static List<DataFile> take(Table table, String fileSetId) {
    FileRewriteCoordinator coordinator = FileRewriteCoordinator.get();
    try {
      if (!coordinator.fetchSetIds(table).contains(fileSetId)) {
        return new ArrayList<>(); // nothing staged: the write had no rows
      }
      @SuppressWarnings("unchecked")
      Set<DataFile> files = coordinator.fetchNewFiles(table, fileSetId);
      return files == null ? new ArrayList<>() : new ArrayList<>(files);
    } finally {
      coordinator.clearRewrite(table, fileSetId);
    }
  }
}
