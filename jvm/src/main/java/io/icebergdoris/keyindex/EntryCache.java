package io.icebergdoris.keyindex;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The entries held in this JVM's memory within a budget, and how a probe finds a file's entry.
 *
 * <p>Beyond the budget, least recently used entries make room for a new one only if the new one
 * was asked for more often than each of them lately (frequency admission, as TinyLFU). Plain LRU
 * keeps nothing when every load touches more entries than fit, the usual pattern of an upsert
 * spread over the whole key space: each entry is evicted just before it is needed again, and
 * every load reads every entry file. With admission, the entries cached first stay and serve
 * every load, and only the rest are read. Counts are halved after every {@link #sampleSize} asks,
 * so entries of files that are gone (compacted, expired) lose their place over time.
 */
final class EntryCache {
  private static final Logger LOG = LoggerFactory.getLogger(EntryCache.class);
  private static final Object LOCK = new Object();
  // Access-ordered: iteration starts at the least recently used entry. Keyed by entry location
  // (data file identity and key layout).
  private static final LinkedHashMap<String, KeyIndexEntry> CACHE = new LinkedHashMap<>(64, 0.75f, true);
  private static long cachedRows = 0; // keys held
  private static long cachedWeight = 0; // what the budget counts: the entries' bytes in 12-byte units
  private static long cachedBytes = 0;
  // How often each entry location was asked for lately (cached or not); halved every sampleSize asks.
  private static final HashMap<String, Integer> ASKED = new HashMap<>();
  private static long asksInSample = 0;
  static final int MIN_SAMPLE = 256;

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
      ASKED.clear();
      asksInSample = 0;
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
    KeyIndexEntry entry = lookUp(entryLocation);
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

  /**
   * Caches {@code entry} at {@code key} within {@code maxRows}'s budget (see the class comment);
   * false when it was not admitted (the caller uses it all the same). An entry alone over the
   * budget is kept: the one in use stays.
   */
  static boolean remember(String key, KeyIndexEntry entry, long maxRows) {
    long budget = budget(maxRows);
    synchronized (LOCK) {
      KeyIndexEntry previous = CACHE.put(key, entry);
      if (previous != null) {
        count(previous, -1);
      }
      count(entry, 1);
      List<String> victims = new ArrayList<>();
      long remaining = cachedWeight;
      int hottest = 0;
      for (Map.Entry<String, KeyIndexEntry> oldest : CACHE.entrySet()) {
        if (remaining <= budget) {
          break;
        }
        if (!oldest.getKey().equals(key)) {
          victims.add(oldest.getKey());
          remaining -= oldest.getValue().weight();
          hottest = Math.max(hottest, ASKED.getOrDefault(oldest.getKey(), 0));
        }
      }
      if (previous == null && !victims.isEmpty() && ASKED.getOrDefault(key, 0) <= hottest) {
        CACHE.remove(key);
        count(entry, -1);
        return false;
      }
      for (String victim : victims) {
        count(CACHE.remove(victim), -1);
      }
      return true;
    }
  }

  /**
   * The cached entry at {@code key} (null: not cached), counting the ask and making a hit the most
   * recently used. Every probe's lookup goes through here.
   */
  static KeyIndexEntry lookUp(String key) {
    synchronized (LOCK) {
      ASKED.merge(key, 1, Integer::sum);
      if (++asksInSample >= sampleSize()) {
        ASKED.replaceAll((location, asks) -> asks / 2);
        ASKED.values().removeIf(asks -> asks == 0);
        asksInSample = 0;
      }
      return CACHE.get(key);
    }
  }

  /** How often the entry at {@code key} was asked for lately (for tests). */
  static int asks(String key) {
    synchronized (LOCK) {
      return ASKED.getOrDefault(key, 0);
    }
  }

  /** Whether the entry at {@code key} is cached (for tests). */
  static boolean holds(String key) {
    synchronized (LOCK) {
      return CACHE.containsKey(key);
    }
  }

  /** Asks between two halvings: ten per cached entry, as TinyLFU's sample, and at least {@link #MIN_SAMPLE}. */
  static long sampleSize() {
    return Math.max(MIN_SAMPLE, 10L * CACHE.size());
  }

  /** Adds ({@code sign} 1) or takes away (-1) an entry's keys, weight and bytes; under LOCK. */
  private static void count(KeyIndexEntry entry, int sign) {
    cachedRows += sign * (long) entry.size();
    cachedWeight += sign * entry.weight();
    cachedBytes += sign * entry.bytesHeld();
  }
}
