package io.icebergdoris.keyindex;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.Arrays;
import java.util.Random;
import org.apache.iceberg.shaded.org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.iceberg.shaded.org.apache.parquet.column.values.rle.RunLengthBitPackingHybridEncoder;
import org.junit.jupiter.api.Test;

/**
 * The RLE / bit-packing hybrid as Parquet's own encoder writes it (definition levels, dictionary
 * ids): every bit width decodes to the values written, from any offset and for any prefix; the
 * all-defined shortcut never claims a page without NULLs that has one; damaged input is refused.
 */
class HybridTest {

  private static final Random RANDOM = new Random(32);

  static byte[] encode(int bitWidth, int[] values) throws IOException {
    RunLengthBitPackingHybridEncoder encoder =
        new RunLengthBitPackingHybridEncoder(bitWidth, 64, 1 << 20, HeapByteBufferAllocator.getInstance());
    for (int value : values) {
      encoder.writeInt(value);
    }
    byte[] bytes = encoder.toBytes().toByteArray();
    encoder.close();
    return bytes;
  }

  /** Runs of repeats (which the encoder writes as RLE runs) between stretches of random values (bit-packed). */
  private static int[] mixedValues(int bitWidth, int count) {
    long mask = bitWidth == 32 ? 0xFFFFFFFFL : (1L << bitWidth) - 1;
    int[] values = new int[count];
    int i = 0;
    while (i < count) {
      int length = Math.min(count - i, 1 + RANDOM.nextInt(30));
      boolean repeat = RANDOM.nextBoolean();
      int value = (int) (RANDOM.nextLong() & mask);
      for (int j = 0; j < length; j++) {
        values[i++] = repeat ? value : (int) (RANDOM.nextLong() & mask);
      }
    }
    return values;
  }

  @Test
  void everyBitWidthDecodesToTheValuesWritten() throws IOException {
    for (int bitWidth = 0; bitWidth <= 32; bitWidth++) {
      for (int count : new int[] {1, 7, 8, 9, 100, 1000}) {
        int[] values = mixedValues(bitWidth, count);
        byte[] bytes = encode(bitWidth, values);
        int[] decoded = new int[count];
        Hybrid.decode(bytes, 0, bytes.length, bitWidth, decoded, count);
        assertArrayEquals(values, decoded, bitWidth + " bits, " + count + " values");
      }
    }
  }

  @Test
  void aPrefixDecodesFromAnOffsetWithoutReadingPastItsEnd() throws IOException {
    for (int bitWidth : new int[] {1, 3, 8, 17, 32}) {
      int[] values = mixedValues(bitWidth, 500);
      byte[] encoded = encode(bitWidth, values);
      // The runs in the middle of a larger array, bytes of other data around them.
      byte[] page = new byte[encoded.length + 13];
      Arrays.fill(page, (byte) 0xa5);
      System.arraycopy(encoded, 0, page, 5, encoded.length);
      for (int prefix : new int[] {0, 1, 13, 250, 499, 500}) {
        int[] decoded = new int[prefix];
        Hybrid.decode(page, 5, 5 + encoded.length, bitWidth, decoded, prefix); // fills exactly `prefix` values
        assertArrayEquals(Arrays.copyOf(values, prefix), decoded, bitWidth + " bits, first " + prefix);
      }
    }
  }

  @Test
  void onlyRunsOfOnesCountAsAllDefined() throws IOException {
    // A page without NULLs: one RLE run of definition level 1.
    int[] ones = new int[1000];
    Arrays.fill(ones, 1);
    byte[] allDefined = encode(1, ones);
    assertTrue(Hybrid.allRunsOf(allDefined, 0, allDefined.length, 1, 1, 1000));
    assertTrue(Hybrid.allRunsOf(allDefined, 0, allDefined.length, 1, 1, 10), "a prefix of the run");
    assertFalse(Hybrid.allRunsOf(allDefined, 0, allDefined.length, 1, 0, 1000), "another value");

    // One NULL anywhere must never pass, whatever runs the encoder chose.
    for (int round = 0; round < 300; round++) {
      int count = 1 + RANDOM.nextInt(300);
      int[] levels = new int[count];
      Arrays.fill(levels, 1);
      int nulls = 1 + RANDOM.nextInt(3);
      for (int n = 0; n < nulls; n++) {
        levels[RANDOM.nextInt(count)] = 0;
      }
      byte[] bytes = encode(1, levels);
      assertFalse(Hybrid.allRunsOf(bytes, 0, bytes.length, 1, 1, count), "levels " + Arrays.toString(levels));
      int[] decoded = new int[count];
      Hybrid.decode(bytes, 0, bytes.length, 1, decoded, count);
      assertArrayEquals(levels, decoded);
    }

    // Fewer than 8 ones are bit-packed: not recognised (the caller then decodes them, and finds ones).
    byte[] few = encode(1, new int[] {1, 1, 1, 1, 1});
    assertFalse(Hybrid.allRunsOf(few, 0, few.length, 1, 1, 5));
  }

  @Test
  void truncatedRunsAndImpossibleWidthsAreRefused() throws IOException {
    int[] values = mixedValues(5, 200);
    byte[] bytes = encode(5, values);
    for (int limit = 0; limit < bytes.length; limit++) {
      int cut = limit;
      // The last bit-packed group may hold padding beyond the 200th value: cutting only that is harmless.
      try {
        int[] decoded = new int[200];
        Hybrid.decode(bytes, 0, cut, 5, decoded, 200);
        assertArrayEquals(values, decoded, "a page cut at " + cut + " that still decodes must decode right");
      } catch (IllegalStateException refused) {
        assertEquals("a Parquet page whose levels or ids end early", refused.getMessage());
      }
      assertFalse(cut == 0 && decodes(bytes, cut, 5, 200), "nothing decodes from no bytes");
    }
    assertThrows(IllegalStateException.class, () -> Hybrid.decode(bytes, 0, bytes.length, 33, new int[1], 1));
    assertThrows(IllegalStateException.class, () -> Hybrid.decode(bytes, 0, bytes.length, -1, new int[1], 1));
  }

  private static boolean decodes(byte[] bytes, int limit, int bitWidth, int count) {
    try {
      Hybrid.decode(bytes, 0, limit, bitWidth, new int[count], count);
      return true;
    } catch (IllegalStateException e) {
      return false;
    }
  }

  @Test
  void littleEndianValuesAreReadWithinTheirPage() {
    byte[] bytes = {1, 0, 0, (byte) 0x80, 2, 0, 0, 0, 0, 0, 0, 0x40};
    assertEquals(0x80000001, Hybrid.intLittleEndian(bytes, 0, bytes.length));
    assertEquals(0x4000000000000002L, Hybrid.longLittleEndian(bytes, 4));
    // A value running past the page's end (though not the array's) is refused.
    assertThrows(IllegalStateException.class, () -> Hybrid.intLittleEndian(bytes, 2, 5));
    assertThrows(IllegalStateException.class, () -> Hybrid.intLittleEndian(bytes, -1, 5));
  }
}
