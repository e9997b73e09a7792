package io.icebergdoris.keyindex;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Comparator;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The index's own sorts and searches: the primitive quicksort must sort its keys and move each
 * payload with its key, the merge of sorted runs must give the stable order of all keys, and the
 * binary search must find the first value not below the key.
 */
class SortingTest {

  private static final Random RANDOM = new Random(1302);

  private static long[] randomLongs(int count) {
    long[] keys = new long[count];
    int shape = RANDOM.nextInt(5);
    for (int i = 0; i < count; i++) {
      switch (shape) {
        case 0: // few distinct values: many ties for the partitioning
          keys[i] = RANDOM.nextInt(4) - 2;
          break;
        case 1: // already sorted
          keys[i] = i;
          break;
        case 2: // reversed
          keys[i] = count - i;
          break;
        case 3: // all equal
          keys[i] = 7;
          break;
        default:
          keys[i] = RANDOM.nextLong();
      }
    }
    return keys;
  }

  @Test
  void theQuicksortSortsKeysAndMovesEachPayloadWithItsKey() {
    for (int round = 0; round < 300; round++) {
      int count = RANDOM.nextInt(round < 250 ? 100 : 5000);
      long[] original = randomLongs(count);
      long[] keys = original.clone();
      int[] payload = IntStream.range(0, count).toArray();
      Sorting.sort(keys, payload);

      long[] expected = original.clone();
      Arrays.sort(expected);
      assertArrayEquals(expected, keys, "round " + round);
      for (int i = 0; i < count; i++) {
        assertEquals(original[payload[i]], keys[i], "payload of key " + i);
      }
      assertArrayEquals(IntStream.range(0, count).toArray(), Arrays.stream(payload).sorted().toArray(), "each payload once");
    }
  }

  @Test
  void sortedOrderOfLongsLeavesTheKeysAsTheyWere() {
    long[] keys = {5, -1, 3, -1, 9};
    int[] order = Sorting.sortedOrder(keys, null, keys.length);
    assertArrayEquals(new long[] {5, -1, 3, -1, 9}, keys);
    for (int i = 1; i < order.length; i++) {
      assertTrue(keys[order[i - 1]] <= keys[order[i]]);
    }
    assertEquals(2, order[2]); // 3 is the third smallest
  }

  @Test
  void mergingSortedRunsGivesTheStableOrderOfAllKeys() {
    for (int round = 0; round < 200; round++) {
      int runCount = RANDOM.nextInt(9); // odd counts leave a run without a partner in a pass
      int[] runs = new int[runCount + 1];
      byte[][] bytes = new byte[runCount * 40][];
      int at = 0;
      for (int r = 0; r < runCount; r++) {
        runs[r] = at;
        int length = RANDOM.nextInt(40); // empty runs included
        byte[][] run = new byte[length][];
        for (int i = 0; i < length; i++) {
          run[i] = new byte[RANDOM.nextInt(3)];
          for (int b = 0; b < run[i].length; b++) {
            run[i][b] = (byte) (RANDOM.nextInt(3) * 0x7f); // 0x00, 0x7f, 0xfe: signed and unsigned orders differ
          }
        }
        Integer[] sorted = IntStream.range(0, length).boxed().toArray(Integer[]::new);
        Arrays.sort(sorted, Comparator.comparing((Integer i) -> run[i], Arrays::compareUnsigned)); // a stable sort
        for (int i = 0; i < length; i++) {
          bytes[at + i] = run[sorted[i]];
        }
        at += length;
      }
      runs[runCount] = at;
      byte[][] keys = Arrays.copyOf(bytes, at);

      int[] expected = IntStream.range(0, at).boxed()
          .sorted(Comparator.comparing((Integer i) -> keys[i], Arrays::compareUnsigned))
          .mapToInt(Integer::intValue).toArray();
      assertArrayEquals(expected, Sorting.mergedOrder(keys, runs), "round " + round + ", runs " + Arrays.toString(runs));
    }
  }

  @Test
  void lowerBoundFindsTheFirstValueNotBelowTheKey() {
    long[] values = {-5, -5, 0, 3, 3, 3, 10};
    assertEquals(0, Sorting.lowerBound(values, 0, values.length, Long.MIN_VALUE));
    assertEquals(0, Sorting.lowerBound(values, 0, values.length, -5));
    assertEquals(2, Sorting.lowerBound(values, 0, values.length, -4));
    assertEquals(3, Sorting.lowerBound(values, 0, values.length, 3));
    assertEquals(6, Sorting.lowerBound(values, 0, values.length, 4));
    assertEquals(7, Sorting.lowerBound(values, 0, values.length, 11));
    // Within [from, to) only.
    assertEquals(4, Sorting.lowerBound(values, 4, values.length, -5));
    assertEquals(5, Sorting.lowerBound(values, 0, 5, 10));
  }
}
