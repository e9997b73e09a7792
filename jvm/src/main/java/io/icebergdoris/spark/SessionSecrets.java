package io.icebergdoris.spark;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import org.apache.spark.sql.SparkSession;

/**
 * Receives a secret setting (a catalog password) after the driver has started.
 *
 * <p>PySpark puts every launch setting on spark-submit's command line, which any local user can
 * read. The Python driver therefore leaves secrets out of the launch and writes each one to an
 * owner-only file; this reads the file, sets the value, and deletes the file, so the value never
 * travels as py4j command text either (py4j logs commands at DEBUG level). Python code that needs a
 * secret back (the PostgreSQL commit lock connects with the catalog's password) gets it the same
 * way, through a file, never as a py4j answer (also logged at DEBUG level).
 */
public final class SessionSecrets {

  private SessionSecrets() {}

  /**
   * Sets {@code key} in the session's SQL conf, where a catalog reads its settings when first
   * loaded, from the file at {@code path}. Not in the SparkContext's conf: that one is printed by
   * {@code getConf().getAll()} unredacted (so {@code spark.newSession()} starts without it).
   */
  public static void setFromFile(SparkSession session, String key, String path) throws IOException {
    Path file = Paths.get(path);
    try {
      session.conf().set(key, new String(Files.readAllBytes(file), StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(file);
    }
  }

  /**
   * Writes the value of {@code key} in the session's SQL conf to a new file at {@code path} (in a
   * folder only the owner can enter; the caller reads and deletes it). Returns false, writing
   * nothing, when the key is not set.
   */
  public static boolean writeToFile(SparkSession session, String key, String path) throws IOException {
    if (!session.conf().contains(key)) {
      return false;
    }
    Files.write(
        Paths.get(path),
        session.conf().get(key).getBytes(StandardCharsets.UTF_8),
        StandardOpenOption.CREATE_NEW,
        StandardOpenOption.WRITE);
    return true;
  }
}
