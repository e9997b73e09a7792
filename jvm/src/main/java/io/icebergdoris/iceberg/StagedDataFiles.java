package io.icebergdoris.iceberg;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.FileRewriteCoordinator;

/**
 * Data files Spark wrote for a table without committing them: a write with the option
 * {@code rewritten-file-scan-task-set-id} hands its files to Iceberg's FileRewriteCoordinator
 * (JVM memory, keyed by table and id) instead of committing a snapshot.
 */
public final class StagedDataFiles {

  private StagedDataFiles() {}

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
