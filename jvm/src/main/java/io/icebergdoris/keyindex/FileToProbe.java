package io.icebergdoris.keyindex;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;

/** A data file to probe with the delete files that apply to it in the looked-up snapshot. */
final class FileToProbe implements Serializable {
  private static final long serialVersionUID = 3L;
  final String location;
  final long sizeInBytes;
  final long recordCount;
  // What a stored entry must say it describes (KeyIndexFiles.binding): this exact data file.
  final String binding;
  final List<DeleteFile> deletes;

  FileToProbe(DataFile file, List<DeleteFile> deletes) {
    this.location = file.location();
    this.sizeInBytes = file.fileSizeInBytes();
    this.recordCount = file.recordCount();
    this.binding = KeyIndexFiles.binding(file);
    this.deletes = new ArrayList<>(deletes);
  }
}
