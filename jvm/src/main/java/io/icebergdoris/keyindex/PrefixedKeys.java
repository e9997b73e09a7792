package io.icebergdoris.keyindex;

import java.util.Arrays;

/**
 * Sorted encoded keys as the executor cache holds them: in blocks of {@value #BLOCK}, each block's
 * common prefix stored once and each key's remaining bytes after it.
 *
 * <p>Sorted neighbours share most of their bytes: "order-000000012345" and the next key in its file
 * differ in the last digit or two. Stored whole (20 encoded bytes and a 4-byte offset, 2 budget
 * units), a 100M-row table's string keys overflowed the cache's budget on a 6 GiB heap, and as
 * every upsert touched every file, the least-recently-used cache evicted each entry before it was
 * asked for again: every load reread all of them (4.7 s where the 1M-row table took 0.7 s). Blocks
 * keep random access (key {@code i}'s prefix is its block's), which the probe's galloping search
 * needs, where front coding key by key would decode from the block's start on every compare.
 */
final class PrefixedKeys {
  static final int BLOCK_SHIFT = 4;
  static final int BLOCK = 1 << BLOCK_SHIFT;

  private final byte[] prefixes; // block b's prefix: [prefixEnds[b], prefixEnds[b + 1])
  private final int[] prefixEnds;
  private final byte[] suffixes; // key i's rest: [suffixEnds[i], suffixEnds[i + 1])
  private final int[] suffixEnds;

  private PrefixedKeys(byte[] prefixes, int[] prefixEnds, byte[] suffixes, int[] suffixEnds) {
    this.prefixes = prefixes;
    this.prefixEnds = prefixEnds;
    this.suffixes = suffixes;
    this.suffixEnds = suffixEnds;
  }

  /** The keys at {@code data[offsets[i], offsets[i + 1])}, in unsigned byte order. */
  static PrefixedKeys of(byte[] data, int[] offsets) {
    int count = offsets.length - 1;
    int blocks = (count + BLOCK - 1) >>> BLOCK_SHIFT;
    int[] prefixEnds = new int[blocks + 1];
    long suffixBytes = 0;
    for (int b = 0; b < blocks; b++) {
      int first = b << BLOCK_SHIFT;
      int last = Math.min(count, first + BLOCK) - 1;
      // Sorted: the first and last keys' common prefix is every key's in between.
      int shared = commonPrefix(data, offsets[first], offsets[first + 1], offsets[last], offsets[last + 1]);
      prefixEnds[b + 1] = prefixEnds[b] + shared;
      suffixBytes += (offsets[last + 1] - offsets[first]) - (long) shared * (last - first + 1);
    }
    byte[] prefixes = new byte[prefixEnds[blocks]];
    byte[] suffixes = new byte[(int) suffixBytes];
    int[] suffixEnds = new int[count + 1];
    int at = 0;
    for (int b = 0; b < blocks; b++) {
      int first = b << BLOCK_SHIFT;
      int shared = prefixEnds[b + 1] - prefixEnds[b];
      System.arraycopy(data, offsets[first], prefixes, prefixEnds[b], shared);
      for (int i = first; i < Math.min(count, first + BLOCK); i++) {
        int length = offsets[i + 1] - offsets[i] - shared;
        System.arraycopy(data, offsets[i] + shared, suffixes, at, length);
        at += length;
        suffixEnds[i + 1] = at;
      }
    }
    return new PrefixedKeys(prefixes, prefixEnds, suffixes, suffixEnds);
  }

  private static int commonPrefix(byte[] data, int aFrom, int aTo, int bFrom, int bTo) {
    int mismatch = Arrays.mismatch(data, aFrom, aTo, data, bFrom, bTo);
    return mismatch < 0 ? aTo - aFrom : mismatch;
  }

  int size() {
    return suffixEnds.length - 1;
  }

  /** Bytes held: the arrays' contents (for the cache's budget). */
  long bytesHeld() {
    return prefixes.length + 4L * prefixEnds.length + suffixes.length + 4L * suffixEnds.length;
  }

  /** The keys' bytes in total, each whole. */
  long totalBytes() {
    long total = suffixes.length;
    int count = size();
    for (int b = 0; b + 1 < prefixEnds.length; b++) {
      int keysInBlock = Math.min(BLOCK, count - (b << BLOCK_SHIFT));
      total += (long) (prefixEnds[b + 1] - prefixEnds[b]) * keysInBlock;
    }
    return total;
  }

  int length(int index) {
    int block = index >>> BLOCK_SHIFT;
    return prefixEnds[block + 1] - prefixEnds[block] + suffixEnds[index + 1] - suffixEnds[index];
  }

  /** Copies key {@code index} to {@code target} at {@code at}; returns its length. */
  int copy(int index, byte[] target, int at) {
    int block = index >>> BLOCK_SHIFT;
    int prefix = prefixEnds[block + 1] - prefixEnds[block];
    int suffix = suffixEnds[index + 1] - suffixEnds[index];
    System.arraycopy(prefixes, prefixEnds[block], target, at, prefix);
    System.arraycopy(suffixes, suffixEnds[index], target, at + prefix, suffix);
    return prefix + suffix;
  }

  byte[] bytes(int index) {
    byte[] key = new byte[length(index)];
    copy(index, key, 0);
    return key;
  }

  /** Key {@code index} against the whole of {@code key}, unsigned byte order. */
  int compare(int index, byte[] key) {
    int block = index >>> BLOCK_SHIFT;
    int from = prefixEnds[block];
    int prefix = prefixEnds[block + 1] - from;
    int shared = Math.min(prefix, key.length);
    int order = Arrays.compareUnsigned(prefixes, from, from + shared, key, 0, shared);
    if (order != 0) {
      return order;
    }
    if (key.length < prefix) {
      return 1; // the key is a proper prefix of this one
    }
    return Arrays.compareUnsigned(suffixes, suffixEnds[index], suffixEnds[index + 1], key, prefix, key.length);
  }

  /** Key {@code index} against key {@code otherIndex} of {@code other}, unsigned byte order. */
  int compare(int index, PrefixedKeys other, int otherIndex) {
    // Each key is two pieces (prefix, rest): compare piece against piece until one side ends.
    int block = index >>> BLOCK_SHIFT;
    int otherBlock = otherIndex >>> BLOCK_SHIFT;
    byte[] mine = prefixes;
    int at = prefixEnds[block];
    int end = prefixEnds[block + 1];
    boolean mineRest = false;
    byte[] theirs = other.prefixes;
    int theirAt = other.prefixEnds[otherBlock];
    int theirEnd = other.prefixEnds[otherBlock + 1];
    boolean theirRest = false;
    while (true) {
      if (at == end && !mineRest) {
        mine = suffixes;
        at = suffixEnds[index];
        end = suffixEnds[index + 1];
        mineRest = true;
        continue;
      }
      if (theirAt == theirEnd && !theirRest) {
        theirs = other.suffixes;
        theirAt = other.suffixEnds[otherIndex];
        theirEnd = other.suffixEnds[otherIndex + 1];
        theirRest = true;
        continue;
      }
      if (at == end || theirAt == theirEnd) {
        return Integer.compare(end - at, theirEnd - theirAt); // whichever has bytes left sorts after
      }
      int step = Math.min(end - at, theirEnd - theirAt);
      int mismatch = Arrays.mismatch(mine, at, at + step, theirs, theirAt, theirAt + step);
      if (mismatch >= 0) {
        return Integer.compare(mine[at + mismatch] & 0xff, theirs[theirAt + mismatch] & 0xff);
      }
      at += step;
      theirAt += step;
    }
  }
}
