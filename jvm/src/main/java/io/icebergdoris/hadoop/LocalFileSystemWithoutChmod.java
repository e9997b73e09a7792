package io.icebergdoris.hadoop;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsAction;
import org.apache.hadoop.fs.permission.FsPermission;

/**
 * Hadoop's local file system ({@code file:}), setting a new file's or directory's permission with a
 * system call instead of a {@code chmod} process.
 *
 * <p>Without Hadoop's native library (Spark's distribution ships none), {@code RawLocalFileSystem}
 * runs {@code chmod} in a new process for every file and directory it creates, and the checksum
 * layer creates a {@code .crc} file beside each: a keyed load into a local table started 14 such
 * processes (its data file, delete file, index entry, manifests, manifest list and table metadata),
 * 2.6 ms each, one after the other on the thread writing. This sets the same permission through
 * {@link Files#setPosixFilePermissions}; everything else (checksums, umask, rename, listing) is
 * Hadoop's own. A permission POSIX file attributes cannot express (sticky, setuid) or a file system
 * without them still goes through Hadoop's {@code chmod}. Installed by {@link #useInThisJvm}: naming
 * it in {@code spark.hadoop.fs.file.impl} at launch fails, as {@code spark-submit} reads files
 * before the bridge jar is on the class path.
 */
public class LocalFileSystemWithoutChmod extends LocalFileSystem {

  /** The Hadoop setting naming the {@code file:} file system's class. */
  public static final String IMPL = "fs.file.impl";

  public LocalFileSystemWithoutChmod() {
    super(new Raw());
  }

  /**
   * Makes {@code conf} (the driver's Hadoop configuration, which Spark copies into every job's)
   * name this class for {@code file:}, and replaces the local file system Hadoop cached for this
   * JVM while Spark launched (the cache is keyed by scheme and user, not by configuration, so the
   * setting alone would never be read). Only where one JVM runs every task (local mode). Returns
   * whether {@code file:} now resolves to this class; if Hadoop's cache cannot be reached, nothing
   * is changed. A caller with a configuration of its own that reaches the file system first after
   * this gets Hadoop's class again: slower, never different.
   */
  public static boolean useInThisJvm(Configuration conf) throws IOException {
    String before = conf.get(IMPL);
    conf.set(IMPL, LocalFileSystemWithoutChmod.class.getName());
    try {
      FileSystem cached = FileSystem.getLocal(conf);
      if (!(cached instanceof LocalFileSystemWithoutChmod)) {
        uncache(cached);
      }
      if (FileSystem.getLocal(conf) instanceof LocalFileSystemWithoutChmod) {
        return true;
      }
    } catch (ReflectiveOperationException | RuntimeException e) {
      // another Hadoop's cache: leave everything as it was
    }
    if (before == null) {
      conf.unset(IMPL);
    } else {
      conf.set(IMPL, before);
    }
    return false;
  }

  /** Drops {@code fs} from Hadoop's cache without closing it (its holders keep using it). */
  private static void uncache(FileSystem fs) throws ReflectiveOperationException {
    Field cacheField = FileSystem.class.getDeclaredField("CACHE");
    Field keyField = FileSystem.class.getDeclaredField("key");
    cacheField.setAccessible(true);
    keyField.setAccessible(true);
    Object cache = cacheField.get(null);
    Object key = keyField.get(fs);
    Method remove = cache.getClass().getDeclaredMethod("remove", key.getClass(), FileSystem.class);
    remove.setAccessible(true);
    remove.invoke(cache, key, fs);
  }

  /** The raw local file system under the checksums, with the permission set in process. */
  public static class Raw extends RawLocalFileSystem {
    @Override
    public void setPermission(Path path, FsPermission permission) throws IOException {
      Set<PosixFilePermission> posix = posixOf(permission);
      if (posix == null) {
        super.setPermission(path, permission);
        return;
      }
      try {
        Files.setPosixFilePermissions(pathToFile(path).toPath(), posix);
      } catch (UnsupportedOperationException notPosix) {
        super.setPermission(path, permission);
      }
    }
  }

  /** {@code permission} as POSIX file permissions, or null when it holds bits they cannot express. */
  public static Set<PosixFilePermission> posixOf(FsPermission permission) {
    if (permission.getStickyBit() || (permission.toShort() & ~0777) != 0) {
      return null;
    }
    Set<PosixFilePermission> result = EnumSet.noneOf(PosixFilePermission.class);
    add(result, permission.getUserAction(), PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE);
    add(result, permission.getGroupAction(), PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE);
    add(result, permission.getOtherAction(), PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);
    return result;
  }

  private static void add(
      Set<PosixFilePermission> into, FsAction action, PosixFilePermission read, PosixFilePermission write, PosixFilePermission execute) {
    if (action.implies(FsAction.READ)) {
      into.add(read);
    }
    if (action.implies(FsAction.WRITE)) {
      into.add(write);
    }
    if (action.implies(FsAction.EXECUTE)) {
      into.add(execute);
    }
  }
}
