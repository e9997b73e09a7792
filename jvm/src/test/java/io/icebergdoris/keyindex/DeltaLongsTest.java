package io.icebergdoris.keyindex;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.iceberg.shaded.org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.iceberg.shaded.org.apache.parquet.column.values.delta.DeltaBinaryPackingValuesWriterForLong;
import org.junit.jupiter.api.Test;

/**
 * DELTA_BINARY_PACKED pages as Parquet's own writer encodes them must decode to the values written:
 * deltas of every bit width from 0 to 64, counts around block and miniblock edges, several block
 * layouts, pages back to back in one array; a damaged page must be refused, not read past.
 */
class DeltaLongsTest {

  private static final Random RANDOM = new Random(64);

  /** Parquet's encoding of {@code values} with blocks of {@code blockSize} values in {@code miniblocks} miniblocks. */
  static byte[] encode(long[] values, int blockSize, int miniblocks) throws IOException {
    DeltaBinaryPackingValuesWriterForLong writer =
        new DeltaBinaryPackingValuesWriterForLong(blockSize, miniblocks, 64, 1 << 20, HeapByteBufferAllocator.getInstance());
    for (long value : values) {
      writer.writeLong(value);
    }
    byte[] page = writer.getBytes().toByteArray();
    writer.close();
    return page;
  }

  static byte[] encode(long[] values) throws IOException {
    return encode(values, 128, 4); // Parquet's default layout
  }

  private static long[] decode(byte[] page, int count) {
    long[] values = new long[count];
    DeltaLongs.decode(page, 0, page.length, values, 0, count);
    return values;
  }

  /**
   * Values whose deltas are {@code smallest} plus a {@code width}-bit number, the first miniblock
   * holding both a delta of exactly {@code smallest} and one of the top bit set: its width is {@code width}.
   */
  private static long[] valuesWithDeltasOfWidth(int width, int count) {
    long span = width == 64 ? -1L : (1L << width) - 1; // the largest delta above the smallest, unsigned
    // The smallest delta leaves room for the span without wrapping past Long.MAX_VALUE (at either end).
    long room = width == 0 ? RANDOM.nextLong() : width == 64 ? 0 : RANDOM.nextLong() >>> width; // (>>> 64 shifts by 0)
    long smallest = width == 0 ? room : RANDOM.nextBoolean() ? Long.MIN_VALUE + room : Long.MAX_VALUE - span - room;
    long[] values = new long[count];
    values[0] = RANDOM.nextLong();
    for (int i = 1; i < count; i++) {
      long above;
      if (i == 1 || width == 0) {
        above = 0;
      } else if (i == 2) {
        above = 1L << (width - 1) | (RANDOM.nextLong() & span);
      } else {
        above = RANDOM.nextLong() & span;
      }
      values[i] = values[i - 1] + smallest + above; // wraps as the encoding does
    }
    return values;
  }

  /** The bit width of the first miniblock of a page, read from its header (not by the decoder under test). */
  private static int firstMiniblockWidth(byte[] page) {
    int[] at = {0};
    unsignedVarint(page, at); // values per block
    unsignedVarint(page, at); // miniblocks per block
    unsignedVarint(page, at); // value count
    unsignedVarint(page, at); // first value, zigzag
    unsignedVarint(page, at); // the block's smallest delta, zigzag
    return page[at[0]] & 0xff;
  }

  private static long unsignedVarint(byte[] bytes, int[] at) {
    long value = 0;
    for (int shift = 0; ; shift += 7) {
      byte b = bytes[at[0]++];
      value |= (long) (b & 0x7f) << shift;
      if (b >= 0) {
        return value;
      }
    }
  }

  @Test
  void deltasOfEveryBitWidthDecode() throws IOException {
    for (int width = 0; width <= 64; width++) {
      for (int count : new int[] {3, 40, 300}) {
        long[] values = valuesWithDeltasOfWidth(width, count);
        byte[] page = encode(values);
        assertEquals(width, firstMiniblockWidth(page), "the page exercises " + width + "-bit deltas");
        assertArrayEquals(values, decode(page, count), width + "-bit deltas, " + count + " values");
      }
    }
  }

  @Test
  void countsAroundBlockAndMiniblockEdgesInEveryLayout() throws IOException {
    int[][] layouts = {{128, 4}, {128, 16}, {256, 8}, {256, 2}, {128, 1}};
    int[] counts = {0, 1, 2, 7, 8, 9, 31, 32, 33, 127, 128, 129, 255, 256, 257, 1000};
    for (int[] layout : layouts) {
      for (int count : counts) {
        long[] values = new long[count];
        long value = RANDOM.nextLong();
        for (int i = 0; i < count; i++) {
          // Sorted keys with an occasional jump, as an entry's keys and sequence values go.
          value += RANDOM.nextInt(10) == 0 ? RANDOM.nextInt() & 0xffffffffL : RANDOM.nextInt(3);
          values[i] = value;
        }
        assertArrayEquals(values, decode(encode(values, layout[0], layout[1]), count),
            count + " values in blocks of " + layout[0] + " in " + layout[1] + " miniblocks");
      }
    }
  }

  @Test
  void extremeAndAlternatingValuesWrapAsTheEncodingDoes() throws IOException {
    long[][] cases = {
      {Long.MIN_VALUE, Long.MAX_VALUE, Long.MIN_VALUE, Long.MAX_VALUE, 0, -1, 1},
      {0, Long.MIN_VALUE, -1, Long.MAX_VALUE, 0, 0, 0, 0, 0},
      {Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE},
      {5, 4, 3, 2, 1, 0, -1, -2, -3, -4, -5, -6, -7, -8, -9, -10}
    };
    for (long[] values : cases) {
      assertArrayEquals(values, decode(encode(values), values.length), Arrays.toString(values));
    }
  }

  @Test
  void manySmallPagesBackToBackDecodeIntoOneArray() throws IOException {
    // Pages inside one larger array with bytes of other data between them, decoded each from its
    // offset into the next free place of one target: the fast path reads 8 bytes at a time and may
    // see the bytes past a page's end, which must not leak into the values.
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    List<int[]> pages = new ArrayList<>(); // {from, limit, count}
    List<Long> expected = new ArrayList<>();
    for (int p = 0; p < 400; p++) {
      int count = 1 + RANDOM.nextInt(50);
      long[] values = valuesWithDeltasOfWidth(RANDOM.nextInt(65), Math.max(count, 3));
      values = Arrays.copyOf(values, count);
      byte[] junk = new byte[RANDOM.nextInt(9)];
      Arrays.fill(junk, (byte) 0xff);
      all.write(junk);
      byte[] page = encode(values);
      pages.add(new int[] {all.size(), all.size() + page.length, count});
      all.write(page);
      for (long value : values) {
        expected.add(value);
      }
    }
    byte[] bytes = all.toByteArray(); // the last page ends with the array: no bytes to read past it
    long[] into = new long[expected.size() + 2];
    int start = 1; // the target's first free place need not be 0
    for (int[] page : pages) {
      DeltaLongs.decode(bytes, page[0], page[1], into, start, page[2]);
      start += page[2];
    }
    for (int i = 0; i < expected.size(); i++) {
      assertEquals(expected.get(i), into[i + 1], "value " + i);
    }
    assertEquals(0, into[0]);
    assertEquals(0, into[into.length - 1]);
  }

  @Test
  void everyTruncationOfAPageIsRefusedAsDamaged() throws IOException {
    long[] values = valuesWithDeltasOfWidth(13, 200);
    byte[] page = encode(values);
    for (int limit = 0; limit < page.length; limit++) {
      int cut = limit;
      IllegalStateException refused = assertThrows(IllegalStateException.class,
          () -> DeltaLongs.decode(page, 0, cut, new long[200], 0, 200), "a page cut at " + cut);
      assertTrue(refused.getMessage().startsWith("a damaged DELTA_BINARY_PACKED page"), refused::getMessage);
    }
  }

  @Test
  void aCountOtherThanThePagesIsRefused() throws IOException {
    byte[] page = encode(new long[] {1, 2, 3});
    IllegalStateException refused =
        assertThrows(IllegalStateException.class, () -> DeltaLongs.decode(page, 0, page.length, new long[4], 0, 4));
    assertTrue(refused.getMessage().contains("3 values where the page has 4"), refused::getMessage);
  }

  @Test
  void impossibleHeadersAndWidthsAreRefused() {
    // 12 values per block in one miniblock: a miniblock is a multiple of 8 values.
    byte[] oddBlock = {12, 1, 1, 0};
    assertThrows(IllegalStateException.class, () -> DeltaLongs.decode(oddBlock, 0, oddBlock.length, new long[1], 0, 1));
    // A block of 128 in 4 miniblocks, 2 values, first 0, smallest delta 0, a first miniblock of 65-bit deltas.
    byte[] wide = new byte[4 + 1 + 4 + 65 * 4];
    byte[] head = {(byte) 0x80, 0x01, 4, 2, 0, 0, 65, 0, 0, 0};
    System.arraycopy(head, 0, wide, 0, head.length);
    IllegalStateException refused =
        assertThrows(IllegalStateException.class, () -> DeltaLongs.decode(wide, 0, wide.length, new long[2], 0, 2));
    assertTrue(refused.getMessage().contains("65-bit"), refused::getMessage);
    // A variable-length integer that never ends.
    byte[] endless = new byte[12];
    Arrays.fill(endless, (byte) 0x80);
    assertThrows(IllegalStateException.class, () -> DeltaLongs.decode(endless, 0, endless.length, new long[1], 0, 1));
  }
}
