package io.icebergdoris.keyindex;

import java.io.File;
import org.apache.iceberg.Files;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;

/**
 * A FileIO over plain local files (Iceberg's own {@link Files}), for tests that write entries and
 * data files into a temporary folder. Not Hadoop's local file system: its checksum files would
 * catch a byte a test corrupts on purpose before the reader under test sees it.
 */
final class LocalFileIO implements FileIO {
  private static final long serialVersionUID = 1L;

  @Override
  public InputFile newInputFile(String path) {
    return Files.localInput(path);
  }

  @Override
  public OutputFile newOutputFile(String path) {
    File file = new File(path);
    file.getParentFile().mkdirs();
    file.delete(); // an OutputFile of Iceberg's local files refuses to create over an existing file
    return Files.localOutput(file);
  }

  @Override
  public void deleteFile(String path) {
    new File(path).delete();
  }
}
