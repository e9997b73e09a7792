package io.icebergdoris.keyindex;

import java.util.Arrays;

/** Sorting and binary searches over the primitive arrays of batches and entries. */
final class Sorting {
  private Sorting() {}

  /**
   * The order of encoded keys made of sorted runs ({@code runs[j]} to
   * {@code runs[j + 1]}) by key, ties in their given order: adjacent runs merged pairwise, so the
   * driver makes a few linear passes instead of sorting every key with a comparator.
   */
  static int[] mergedOrder(byte[][] bytes, int[] runs) {
    int count = runs[runs.length - 1];
    int[] order = new int[count];
    for (int i = 0; i < count; i++) {
      order[i] = i;
    }
    int[] spare = new int[count];
    int[] bounds = runs.clone();
    int runCount = runs.length - 1;
    while (runCount > 1) {
      int[] merged = new int[(runCount + 1) / 2 + 1];
      int next = 0;
      for (int j = 0; j < runCount; j += 2) {
        int low = bounds[j];
        int middle = bounds[j + 1];
        int high = j + 2 <= runCount ? bounds[j + 2] : middle;
        int left = low;
        int right = middle;
        int out = low;
        while (left < middle && right < high) {
          spare[out++] = Arrays.compareUnsigned(bytes[order[left]], bytes[order[right]]) <= 0 ? order[left++] : order[right++];
        }
        while (left < middle) {
          spare[out++] = order[left++];
        }
        while (right < high) {
          spare[out++] = order[right++];
        }
        merged[next++] = low;
      }
      merged[next] = count;
      int[] swap = order;
      order = spare;
      spare = swap;
      bounds = merged;
      runCount = next;
    }
    return order;
  }

  /** The order of {@code count} keys (longs, else encoded bytes) by key (ties in their given order for encoded keys). */
  static int[] sortedOrder(long[] longs, byte[][] bytes, int count) {
    if (longs == null) {
      return EncodedKeyOrder.of(bytes, count);
    }
    int[] order = new int[count];
    for (int i = 0; i < count; i++) {
      order[i] = i;
    }
    sort(longs.clone(), order); // primitive: no boxing for the common integer key
    return order;
  }

  /** First index in [from, to) whose value is >= key. */
  static int lowerBound(long[] values, int from, int to, long key) {
    int low = from;
    int high = to;
    while (low < high) {
      int middle = (low + high) >>> 1;
      if (values[middle] < key) {
        low = middle + 1;
      } else {
        high = middle;
      }
    }
    return low;
  }

  /** Sorts {@code keys} ascending, moving {@code payload} along (quicksort, insertion for short runs). */
  static void sort(long[] keys, int[] payload) {
    sort(keys, payload, 0, keys.length - 1);
  }

  private static void sort(long[] keys, int[] payload, int low, int high) {
    while (high - low > 16) {
      int middle = (low + high) >>> 1;
      // Median of three as the pivot keeps sorted and reversed runs from going quadratic.
      if (keys[middle] < keys[low]) {
        swap(keys, payload, middle, low);
      }
      if (keys[high] < keys[low]) {
        swap(keys, payload, high, low);
      }
      if (keys[high] < keys[middle]) {
        swap(keys, payload, high, middle);
      }
      long pivot = keys[middle];
      int i = low;
      int j = high;
      while (i <= j) {
        while (keys[i] < pivot) {
          i++;
        }
        while (keys[j] > pivot) {
          j--;
        }
        if (i <= j) {
          swap(keys, payload, i++, j--);
        }
      }
      // Recurse into the smaller side, loop on the larger: stack depth stays logarithmic.
      if (j - low < high - i) {
        sort(keys, payload, low, j);
        low = i;
      } else {
        sort(keys, payload, i, high);
        high = j;
      }
    }
    for (int i = low + 1; i <= high; i++) {
      long key = keys[i];
      int value = payload[i];
      int j = i - 1;
      while (j >= low && keys[j] > key) {
        keys[j + 1] = keys[j];
        payload[j + 1] = payload[j];
        j--;
      }
      keys[j + 1] = key;
      payload[j + 1] = value;
    }
  }

  private static void swap(long[] keys, int[] payload, int a, int b) {
    long key = keys[a];
    keys[a] = keys[b];
    keys[b] = key;
    int value = payload[a];
    payload[a] = payload[b];
    payload[b] = value;
  }
}
