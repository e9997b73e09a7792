package io.icebergdoris.iceberg;

import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.Table;

/**
 * The DeleteFile entries of one Puffin file of deletion vectors, built in the JVM. Built from
 * Python each entry costs about fifteen py4j round trips (the spec, the builder and each field),
 * and one upsert into a large table can hit thousands of data files.
 */
public final class DeletionVectorFiles {

  /** Separates the values in the strings exchanged with Python (as in {@link LiveFiles}). */
  public static final String SEPARATOR = LiveFiles.SEPARATOR;

  private DeletionVectorFiles() {}

  /** Each file's record count, in order, joined by {@link #SEPARATOR}. */
  public static String recordCounts(List<DataFile> files) {
    StringBuilder counts = new StringBuilder();
    for (DataFile file : files) {
      if (counts.length() > 0) {
        counts.append(SEPARATOR);
      }
      counts.append(file.recordCount());
    }
    return counts.toString();
  }

  /**
   * One position-delete entry per blob of the Puffin file at {@code puffinLocation} ({@code
   * puffinSize} bytes). {@code blobs} holds a line "target offset length cardinality" per blob,
   * joined by {@link #SEPARATOR}: the blob is the deletion vector of {@code targets.get(target)},
   * whose location, spec and partition the entry takes.
   */
  public static List<DeleteFile> of(
      Table table, List<DataFile> targets, String puffinLocation, long puffinSize, String blobs) {
    String[] lines = blobs.isEmpty() ? new String[0] : blobs.split(SEPARATOR);
    List<DeleteFile> entries = new ArrayList<>(lines.length);
    for (int i = 0; i < lines.length; i++) {
      String[] fields = lines[i].split(" ");
      if (fields.length != 4) {
        throw new IllegalArgumentException(
            "Expected \"target offset length cardinality\", got \"" + lines[i] + "\"");
      }
      DataFile target = targets.get(Integer.parseInt(fields[0]));
      entries.add(
          FileMetadata.deleteFileBuilder(table.specs().get(target.specId()))
              .ofPositionDeletes()
              .withFormat(FileFormat.PUFFIN)
              .withPath(puffinLocation)
              .withPartition(target.partition())
              .withFileSizeInBytes(puffinSize)
              .withReferencedDataFile(target.location())
              .withContentOffset(Long.parseLong(fields[1]))
              .withContentSizeInBytes(Long.parseLong(fields[2]))
              .withRecordCount(Long.parseLong(fields[3]))
              .build());
    }
    return entries;
  }
}
