package io.icebergdoris.keyindex;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.util.Arrays;
import java.util.Comparator;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Encoded keys sort by their bytes, unsigned, a shorter key first on a common prefix, ties in
 * index order: checked against {@link Arrays#compareUnsigned} with a stable sort as the reference.
 */
class EncodedKeyOrderTest {

  @Test
  void zeroPaddingNeverTiesAShorterKeyWithALongerOne() {
    // The sort compares 8-byte words padded with zeros: [1] and [1, 0] share their first word.
    byte[][] keys = {{1, 0}, {1}, {1, 0, 0, 0, 0, 0, 0, 0, 0}, {1, 0, 0, 0, 0, 0, 0, 0}, {}};
    assertArrayEquals(reference(keys), EncodedKeyOrder.of(keys, keys.length));
  }

  @Test
  void bytesCompareUnsignedSoNegativeBytesSortLast() {
    byte[][] keys = {{(byte) 0xff}, {0x7f}, {(byte) 0x80}, {0x00}, {(byte) 0x80, 0x01}};
    assertArrayEquals(new int[] {3, 1, 2, 4, 0}, EncodedKeyOrder.of(keys, keys.length));
  }

  @Test
  void randomKeysOfEveryLengthMatchTheReference() {
    Random random = new Random(42);
    for (int round = 0; round < 50; round++) {
      int count = 1 + random.nextInt(300); // past the insertion-sort threshold, into the merge sort
      byte[][] keys = new byte[count][];
      for (int i = 0; i < count; i++) {
        // Few byte values and shared prefixes make ties and long common runs likely.
        int length = random.nextInt(25);
        keys[i] = new byte[length];
        for (int b = 0; b < length; b++) {
          keys[i][b] = (byte) (random.nextBoolean() ? 0 : random.nextInt(4) * 85);
        }
        if (i > 0 && random.nextInt(4) == 0) {
          keys[i] = keys[random.nextInt(i)].clone(); // an equal key: order by index
        }
      }
      assertArrayEquals(reference(keys), EncodedKeyOrder.of(keys, count), "round " + round);
    }
  }

  @Test
  void onlyTheFirstCountKeysAreOrdered() {
    byte[][] keys = {{3}, {1}, {2}, {0}};
    assertArrayEquals(new int[] {1, 2, 0}, EncodedKeyOrder.of(keys, 3));
  }

  private static int[] reference(byte[][] keys) {
    return IntStream.range(0, keys.length)
        .boxed()
        .sorted(Comparator.<Integer, byte[]>comparing(i -> keys[i], Arrays::compareUnsigned)) // stable
        .mapToInt(Integer::intValue)
        .toArray();
  }
}
