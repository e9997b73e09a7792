package io.icebergdoris.keyindex;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.iceberg.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The entries held in this JVM's memory, least recently used first out beyond a row budget, and how a probe finds a file's entry. */
final class EntryCache {
  private static final Logger LOG = LoggerFactory.getLogger(EntryCache.class);
  private static final Object LOCK = new Object();
  // Access-ordered: iteration starts at the least recently used entry. Keyed by entry location
  // (data file identity and key layout).
  private static final LinkedHashMap<String, KeyIndexEntry> CACHE = new LinkedHashMap<>(64, 0.75f, true);
  private static long cachedRows = 0; // keys held
  private static long cachedWeight = 0; // what the budget counts: the entries' bytes in 12-byte units
  private static long cachedBytes = 0;

  private EntryCache() {}

  /** Share of this JVM's maximum heap the cache takes when the request leaves the budget to it. */
  static final int AUTO_HEAP_DIVISOR = 5;

  /**
   * The budget in 12-byte units (an entry weighs the bytes it holds, {@link KeyIndexEntry#weight}):
   * {@code maxRows}, or for {@link IndexRequest#AUTO_BUDGET} a fifth of this JVM's maximum heap
   * (Doris sizes its page cache, which holds the primary key index, as a share of memory too).
   * Spark's own execution and storage memory is accounted separately; the cache lives in the heap
   * Spark leaves to user code.
   */
  static long budget(long maxRows) {
    if (maxRows != IndexRequest.AUTO_BUDGET) {
      return maxRows;
    }
    return Runtime.getRuntime().maxMemory() / AUTO_HEAP_DIVISOR / 12;
  }

  /** Entries and rows cached in this JVM (for tests and diagnostics). */
  static long cachedRows() {
    synchronized (LOCK) {
      return cachedRows;
    }
  }

  static long cachedBytes() {
    synchronized (LOCK) {
      return cachedBytes;
    }
  }

  static int cachedFiles() {
    synchronized (LOCK) {
      return CACHE.size();
    }
  }

  /** Forgets every entry of this JVM (its stored files stay). */
  static void clear() {
    synchronized (LOCK) {
      CACHE.clear();
      cachedRows = 0;
      cachedWeight = 0;
      cachedBytes = 0;
    }
  }

  /** A file's entry (null: the file holds a NULL key), where it came from and what went wrong on the way. */
  static final class Found {
    final KeyIndexEntry entry;
    final EntrySource source;
    final String rejected;
    final String unwritten;

    Found(KeyIndexEntry entry, EntrySource source, String rejected, String unwritten) {
      this.entry = entry;
      this.source = source;
      this.rejected = rejected;
      this.unwritten = unwritten;
    }
  }

  /**
   * The entry of {@code file}: from this JVM's cache, else read from its stored file, else built
   * from the data file and (with {@code layout.persist}) stored; kept in the cache either way.
   */
  static Found entryFor(Table files, FileToProbe file, Layout layout, long maxRows) {
    String hash = KeyIndexFiles.dataFileHash(file.location, file.sizeInBytes, file.recordCount);
    String entryLocation = KeyIndexFiles.entryLocation(files.location(), hash, layout.layoutHash);
    KeyIndexEntry entry;
    synchronized (LOCK) {
      entry = CACHE.get(entryLocation);
    }
    if (entry != null) {
      return new Found(entry, EntrySource.CACHED, null, null);
    }
    EntrySource source = EntrySource.READ;
    String rejected = null;
    String unwritten = null;
    if (layout.persist) {
      try {
        if (KeyIndexFiles.exists(files.io(), entryLocation)) {
          entry = KeyIndexFiles.read(files.io(), entryLocation, layout.codec, layout.sequence != null, file.recordCount, file.binding);
        }
      } catch (Exception e) {
        rejected = e.getClass().getSimpleName() + ": " + e.getMessage();
        LOG.warn("key index: the stored entry {} of {} is unusable ({}); rebuilding it from the data file", entryLocation, file.location, rejected);
        entry = null;
      }
    }
    if (entry == null) {
      entry = KeyIndexEntry.build(files.io(), file.location, layout.codec, layout.keys, layout.sequence, layout.names);
      if (entry == null) {
        return new Found(null, EntrySource.BUILT, rejected, null);
      }
      source = EntrySource.BUILT;
      if (layout.persist) {
        try {
          KeyIndexFiles.write(files.io(), entryLocation, entry, file.location, file.binding);
        } catch (Exception e) {
          unwritten = e.getClass().getSimpleName() + ": " + e.getMessage();
          LOG.warn("key index: could not store the entry of {} at {} ({})", file.location, entryLocation, unwritten);
        }
      }
    }
    remember(entryLocation, entry, maxRows);
    return new Found(entry, source, rejected, unwritten);
  }

  private static void remember(String key, KeyIndexEntry entry, long maxRows) {
    long budget = budget(maxRows);
    synchronized (LOCK) {
      KeyIndexEntry previous = CACHE.put(key, entry);
      if (previous != null) {
        count(previous, -1);
      }
      count(entry, 1);
      var oldest = CACHE.entrySet().iterator();
      while (cachedWeight > budget && oldest.hasNext()) {
        Map.Entry<String, KeyIndexEntry> evicted = oldest.next();
        if (evicted.getKey().equals(key)) {
          continue; // the entry in use stays, even alone over the budget
        }
        count(evicted.getValue(), -1);
        oldest.remove();
      }
    }
  }

  /** Adds ({@code sign} 1) or takes away (-1) an entry's keys, weight and bytes; under LOCK. */
  private static void count(KeyIndexEntry entry, int sign) {
    cachedRows += sign * (long) entry.size();
    cachedWeight += sign * entry.weight();
    cachedBytes += sign * entry.bytesHeld();
  }
}
