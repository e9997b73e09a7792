package io.icebergdoris.keyindex;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;

/** A data file to probe with the delete files that apply to it in the looked-up snapshot. */
final class FileToProbe implements Serializable {
  private static final long serialVersionUID = 2L;
  final String location;
  final long sizeInBytes;
  final long recordCount;
  final List<DeleteFile> deletes;

  FileToProbe(DataFile file, List<DeleteFile> deletes) {
    this.location = file.location();
    this.sizeInBytes = file.fileSizeInBytes();
    this.recordCount = file.recordCount();
    this.deletes = new ArrayList<>(deletes);
  }
}
