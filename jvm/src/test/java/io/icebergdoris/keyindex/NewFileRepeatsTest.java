package io.icebergdoris.keyindex;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Whether a load's new files repeat a key: files whose key ranges do not overlap cannot share a
 * key, so only clusters of overlapping files are merged; a merge must find a key two entries (or
 * one entry twice) hold, and nothing else.
 */
class NewFileRepeatsTest {

  private static final Random RANDOM = new Random(31);

  private static FileKeys file(String name, int low, int high) {
    return new FileKeys(name, KeyCodec.longBytes(low), KeyCodec.longBytes(high), false, null);
  }

  private static List<List<String>> clusters(FileKeys... files) {
    return NewFileRepeats.overlapping(List.of(files));
  }

  @Test
  void filesWhoseRangesOverlapFormClustersOthersNone() {
    assertEquals(List.of(), clusters(file("a", 1, 2), file("b", 3, 4), file("c", 5, 9)));
    // Sorted by their smallest key; sharing a bound is overlapping (the bound may be the shared key).
    assertEquals(List.of(List.of("a", "b"), List.of("c", "d")),
        clusters(file("d", 10, 12), file("b", 3, 8), file("c", 9, 10), file("a", 1, 5)));
    // c overlaps b but not a: one cluster, as far as the largest key seen so far reaches.
    assertEquals(List.of(List.of("a", "b", "c")), clusters(file("a", 1, 3), file("b", 2, 6), file("c", 5, 7)));
    assertEquals(List.of(List.of("a", "b", "c")), clusters(file("a", 1, 100), file("b", 10, 20), file("c", 30, 40)));
  }

  @Test
  void rangesCompareAsEncodedKeysUnsigned() {
    // Encoded keys from 0x01 to 0x7f and from 0x80 to 0xff are apart (signed bytes would interleave them).
    FileKeys low = new FileKeys("low", new byte[] {0x01}, new byte[] {0x7f}, false, null);
    FileKeys high = new FileKeys("high", new byte[] {(byte) 0x80}, new byte[] {(byte) 0xff}, false, null);
    assertEquals(List.of(), NewFileRepeats.overlapping(List.of(high, low)));
  }

  @Test
  void theVerdictNeedsNoMergeWithoutOverlappingFilesOfOneGroup() {
    Supplier<Layout> noLayout = () -> {
      throw new AssertionError("no merge: the layout is not needed");
    };
    List<FileKeys> apart = List.of(file("a", 1, 5), file("b", 6, 9));
    assertEquals(NewFileRepeats.DISTINCT, NewFileRepeats.verdict(null, null, null, apart, Map.of("a", "p", "b", "p"), noLayout, 0));

    // Overlapping files of different partitions share no key.
    List<FileKeys> overlapping = List.of(file("a", 1, 5), file("b", 3, 9));
    assertEquals(NewFileRepeats.DISTINCT,
        NewFileRepeats.verdict(null, null, null, overlapping, Map.of("a", "p=1", "b", "p=2"), noLayout, 0));

    // A file that repeats a key itself decides; a file with no range (no entry) leaves it unknown.
    List<FileKeys> repeating = List.of(file("a", 1, 5), new FileKeys("b", new byte[8], new byte[8], true, null));
    assertEquals(NewFileRepeats.REPEATS, NewFileRepeats.verdict(null, null, null, repeating, Map.of(), noLayout, 0));
    List<FileKeys> unknown = List.of(file("a", 1, 5), new FileKeys("b", null, null, false, null));
    assertEquals(NewFileRepeats.UNKNOWN, NewFileRepeats.verdict(null, null, null, unknown, Map.of(), noLayout, 0));
  }

  @Test
  void mergingEntriesFindsAKeyHeldTwiceAndNothingElse() {
    for (int round = 0; round < 500; round++) {
      boolean encoded = round % 2 == 0;
      int files = 1 + RANDOM.nextInt(4);
      int space = 5 + RANDOM.nextInt(200);
      List<KeyIndexEntry> entries = new ArrayList<>();
      List<Integer> all = new ArrayList<>();
      for (int f = 0; f < files; f++) {
        int[] keys = RANDOM.ints(RANDOM.nextInt(12), 0, space).toArray();
        for (int key : keys) {
          all.add(key);
        }
        entries.add(encoded
            ? KeyIndexEntry.sorted(null, Arrays.stream(keys).mapToObj(k -> KeyCodec.longBytes(k - 100)).toArray(byte[][]::new), null, null)
            : KeyIndexEntry.sorted(Arrays.stream(keys).asLongStream().map(k -> k - 100).toArray(), null, null, null));
      }
      Set<Integer> distinct = new HashSet<>(all);
      assertEquals(distinct.size() < all.size(), NewFileRepeats.anyKeyShared(entries), "round " + round + ": " + all);
    }
  }
}
