package io.icebergdoris.keyindex;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Many small byte arrays (encoded keys) packed into a few large ones for serialization.
 *
 * <p>Java serialization writes each array of a {@code byte[][]} as an object of its own and
 * tracks it in an identity table: sampled during a load of a million string keys, that was a
 * large share of sending the batch's keys between the executors and the driver. Packed, they are one array of lengths and
 * a few blocks of bytes, which Java serialization and Kryo both copy in bulk.
 */
public final class PackedBytes implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final int BLOCK_BYTES = 64 << 20; // an array never spans two blocks

  private final int[] lengths; // -1 for a null array
  private final int[] blockStarts; // the index of each block's first array
  private final byte[][] blocks;

  private PackedBytes(int[] lengths, int[] blockStarts, byte[][] blocks) {
    this.lengths = lengths;
    this.blockStarts = blockStarts;
    this.blocks = blocks;
  }

  /** The first {@code count} arrays of {@code arrays}, packed. */
  public static PackedBytes of(byte[][] arrays, int count) {
    return of(arrays, count, BLOCK_BYTES);
  }

  /** {@link #of(byte[][], int)} with blocks of at most {@code blockBytes} (unless one array is longer). */
  public static PackedBytes of(byte[][] arrays, int count, int blockBytes) {
    int[] lengths = new int[count];
    List<byte[]> blocks = new ArrayList<>();
    List<Integer> starts = new ArrayList<>();
    int start = 0;
    long size = 0;
    for (int i = 0; i < count; i++) {
      int length = arrays[i] == null ? 0 : arrays[i].length;
      if (i > start && size + length > blockBytes) {
        starts.add(start);
        blocks.add(join(arrays, start, i, (int) size));
        start = i;
        size = 0;
      }
      lengths[i] = arrays[i] == null ? -1 : length;
      size += length;
    }
    if (count > start) {
      starts.add(start);
      blocks.add(join(arrays, start, count, (int) size));
    }
    int[] blockStarts = starts.stream().mapToInt(Integer::intValue).toArray();
    return new PackedBytes(lengths, blockStarts, blocks.toArray(new byte[0][]));
  }

  private static byte[] join(byte[][] arrays, int from, int to, int size) {
    byte[] block = new byte[size];
    int at = 0;
    for (int i = from; i < to; i++) {
      if (arrays[i] != null) {
        System.arraycopy(arrays[i], 0, block, at, arrays[i].length);
        at += arrays[i].length;
      }
    }
    return block;
  }

  public int blockCount() {
    return blocks.length;
  }

  /** The arrays again, in their order. */
  public byte[][] unpack() {
    byte[][] arrays = new byte[lengths.length][];
    int block = -1;
    int at = 0;
    for (int i = 0; i < lengths.length; i++) {
      if (block + 1 < blockStarts.length && blockStarts[block + 1] == i) {
        block++;
        at = 0;
      }
      int length = Math.max(lengths[i], 0);
      arrays[i] = lengths[i] < 0 ? null : Arrays.copyOfRange(blocks[block], at, at + length);
      at += length;
    }
    return arrays;
  }
}
