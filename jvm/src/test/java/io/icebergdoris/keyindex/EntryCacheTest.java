package io.icebergdoris.keyindex;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What the cache keeps within its budget, and what it keeps when the entries asked for do not fit. */
class EntryCacheTest {
  private static final KeyIndexEntry ENTRY = KeyIndexEntry.sorted(LongStream.range(0, 1200).toArray(), null, null, null);
  private static final long ONE = ENTRY.weight();

  @BeforeEach
  @AfterEach
  void empty() {
    EntryCache.clear();
  }

  /** Asks for {@code key} as a probe does: a hit, or a miss whose entry is offered to the cache. */
  private static boolean ask(String key, long budget) {
    if (EntryCache.lookUp(key) != null) {
      return true;
    }
    EntryCache.remember(key, ENTRY, budget);
    return false;
  }

  @Test
  void entriesThatFitAreAllKept() {
    for (String key : new String[] {"a", "b", "c"}) {
      assertFalse(ask(key, 3 * ONE));
    }
    for (String key : new String[] {"a", "b", "c"}) {
      assertTrue(ask(key, 3 * ONE), key);
    }
    assertEquals(3 * 1200, EntryCache.cachedRows());
  }

  @Test
  void aLoopOverMoreEntriesThanFitKeepsTheFirstOnes() {
    // Every load of an upsert spread over the key space asks for every file's entry: plain LRU
    // would evict each one just before it is asked again and hit nothing.
    int hitsAfterFirstPass = 0;
    for (int pass = 0; pass < 5; pass++) {
      int hits = 0;
      for (int file = 0; file < 10; file++) {
        hits += ask("file-" + file, 4 * ONE) ? 1 : 0;
      }
      if (pass > 0) {
        assertEquals(4, hits, "pass " + pass);
        hitsAfterFirstPass += hits;
      }
    }
    assertEquals(16, hitsAfterFirstPass);
    for (int file = 0; file < 4; file++) {
      assertTrue(EntryCache.holds("file-" + file), "file-" + file);
    }
    assertEquals(4 * 1200, EntryCache.cachedRows());
  }

  @Test
  void anEntryAskedForMoreOftenTakesTheLeastRecentlyUsedPlace() {
    ask("a", 2 * ONE);
    ask("b", 2 * ONE);
    assertFalse(ask("hot", 2 * ONE));
    assertFalse(EntryCache.holds("hot"), "asked for once, as often as the cached ones: not admitted");
    assertFalse(ask("hot", 2 * ONE));
    assertTrue(EntryCache.holds("hot"));
    assertFalse(EntryCache.holds("a"), "the least recently used entry made room");
    assertTrue(EntryCache.holds("b"));
  }

  @Test
  void entriesNoLongerAskedForLoseTheirPlace() {
    for (int round = 0; round < 20; round++) {
      ask("old-1", 2 * ONE);
      ask("old-2", 2 * ONE);
    }
    // A compaction replaced both files: their entries are never asked for again.
    boolean bothNew = false;
    for (int round = 0; round < 100 && !bothNew; round++) {
      ask("new-1", 2 * ONE);
      ask("new-2", 2 * ONE);
      bothNew = EntryCache.holds("new-1") && EntryCache.holds("new-2");
    }
    assertTrue(bothNew);
    assertFalse(EntryCache.holds("old-1") || EntryCache.holds("old-2"));
    assertEquals(2 * 1200, EntryCache.cachedRows());
  }

  @Test
  void anEntryAloneOverTheBudgetStays() {
    assertTrue(EntryCache.remember("big", ENTRY, 1));
    assertTrue(EntryCache.holds("big"));
    EntryCache.lookUp("big");
    assertTrue(EntryCache.remember("big", ENTRY, 1), "replacing an entry always keeps the new one");
  }

  @Test
  void countsAreHalvedEverySample() {
    EntryCache.lookUp("once");
    for (int ask = 1; ask < EntryCache.MIN_SAMPLE - 1; ask++) {
      EntryCache.lookUp("x");
    }
    assertEquals(EntryCache.MIN_SAMPLE - 2, EntryCache.asks("x"));
    EntryCache.lookUp("x");
    assertEquals((EntryCache.MIN_SAMPLE - 1) / 2, EntryCache.asks("x"), "the sample's last ask halves every count");
    assertEquals(0, EntryCache.asks("once"), "counts halved to nothing are dropped");
  }
}
