package io.icebergdoris.iceberg;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Paths;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SeekableInputStream;

/**
 * Moves file bytes between a table's FileIO (any storage) and a file on the driver's local disk,
 * which the Python driver reads and writes: py4j carries bytes as base64 text at ~0.1 s per MB,
 * and deletion vectors of large data files are megabytes. (PySpark hands bulk data to the JVM
 * through local files for the same reason; the Python driver and its JVM share a host.)
 */
public final class FileBytes {

  private static final int BUFFER = 1 << 16;

  private FileBytes() {}

  /**
   * Copies {@code length} bytes of {@code location} from {@code offset} ({@code length < 0}: to
   * the end) into {@code localPath}; returns how many bytes were copied (fewer if the file ends).
   */
  public static long copyToLocal(Table table, String location, long offset, long length, String localPath) {
    try (SeekableInputStream in = table.io().newInputFile(location).newStream();
        OutputStream out = Files.newOutputStream(Paths.get(localPath))) {
      if (offset > 0) {
        in.seek(offset);
      }
      return copy(in, out, length);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + location, e);
    }
  }

  /**
   * Creates {@code location} through the table's FileIO holding the bytes of {@code localPath};
   * a failed write leaves no file behind (as far as the storage allows).
   */
  public static void copyFromLocal(Table table, String localPath, String location) {
    FileIO io = table.io();
    try (InputStream in = Files.newInputStream(Paths.get(localPath))) {
      PositionOutputStream out = io.newOutputFile(location).create();
      try {
        copy(in, out, -1);
        out.close();
      } catch (IOException | RuntimeException e) {
        try {
          out.close();
        } catch (IOException ignored) {
          // the write's own failure is the one to report
        }
        io.deleteFile(location);
        throw e;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + location, e);
    }
  }

  /** Whether {@code location} exists, asked through the table's FileIO. */
  public static boolean exists(Table table, String location) {
    return table.io().newInputFile(location).exists();
  }

  private static long copy(InputStream in, OutputStream out, long length) throws IOException {
    byte[] buffer = new byte[BUFFER];
    long copied = 0;
    while (length < 0 || copied < length) {
      int want = length < 0 ? BUFFER : (int) Math.min(BUFFER, length - copied);
      int read = in.read(buffer, 0, want);
      if (read < 0) {
        break;
      }
      out.write(buffer, 0, read);
      copied += read;
    }
    return copied;
  }
}
