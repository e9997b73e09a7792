package io.icebergdoris.keyindex;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * Sorted keys held with each block's common prefix once must read back, measure and compare
 * exactly as the whole keys do (unsigned byte order, a prefix before its extensions), and an entry
 * holding them must checksum as the stored entries were checksummed.
 */
class PrefixedKeysTest {

  private static final Random RANDOM = new Random(20261202);

  /** Keys over a small alphabet: long shared prefixes, repeats, prefixes of each other, empty keys. */
  private static byte[][] sortedKeys(int count) {
    byte[][] keys = new byte[count][];
    for (int i = 0; i < count; i++) {
      keys[i] = key();
    }
    Arrays.sort(keys, Arrays::compareUnsigned);
    return keys;
  }

  private static byte[] key() {
    byte[] key = new byte[RANDOM.nextInt(12)];
    for (int j = 0; j < key.length; j++) {
      key[j] = (byte) (j < 4 && RANDOM.nextInt(4) > 0 ? 'o' : new byte[] {0, 1, 'a', (byte) 0x90, (byte) 0xff}[RANDOM.nextInt(5)]);
    }
    return key;
  }

  /** Where each key ends when laid back to back, after a leading 0. */
  private static int[] offsets(byte[][] keys) {
    int[] offsets = new int[keys.length + 1];
    for (int i = 0; i < keys.length; i++) {
      offsets[i + 1] = offsets[i] + keys[i].length;
    }
    return offsets;
  }

  private static byte[] backToBack(byte[][] keys, int[] offsets) {
    byte[] data = new byte[offsets[keys.length]];
    for (int i = 0; i < keys.length; i++) {
      System.arraycopy(keys[i], 0, data, offsets[i], keys[i].length);
    }
    return data;
  }

  private static PrefixedKeys of(byte[][] keys) {
    int[] offsets = offsets(keys);
    return PrefixedKeys.of(backToBack(keys, offsets), offsets);
  }

  @Test
  void keysReadBackWhole() {
    for (int count : new int[] {0, 1, 15, 16, 17, 33, 500}) {
      byte[][] keys = sortedKeys(count);
      PrefixedKeys held = of(keys);
      assertEquals(count, held.size());
      long total = 0;
      byte[] target = new byte[40];
      for (int i = 0; i < count; i++) {
        assertArrayEquals(keys[i], held.bytes(i), "key " + i + " of " + count);
        assertEquals(keys[i].length, held.length(i));
        assertEquals(keys[i].length, held.copy(i, target, 3));
        assertArrayEquals(keys[i], Arrays.copyOfRange(target, 3, 3 + keys[i].length));
        total += keys[i].length;
      }
      assertEquals(total, held.totalBytes());
    }
  }

  @Test
  void comparingAgreesWithTheWholeKeys() {
    for (int round = 0; round < 50; round++) {
      byte[][] keys = sortedKeys(RANDOM.nextInt(80));
      byte[][] others = sortedKeys(RANDOM.nextInt(80));
      PrefixedKeys held = of(keys);
      PrefixedKeys otherHeld = of(others);
      for (int i = 0; i < keys.length; i++) {
        for (int probe = 0; probe < 20; probe++) {
          // Random keys, the keys themselves, and their prefixes and extensions.
          byte[] key = switch (probe % 4) {
            case 0 -> key();
            case 1 -> keys[RANDOM.nextInt(keys.length)];
            case 2 -> Arrays.copyOf(keys[i], RANDOM.nextInt(keys[i].length + 1));
            default -> Arrays.copyOf(keys[i], keys[i].length + 1);
          };
          assertEquals(Integer.signum(Arrays.compareUnsigned(keys[i], key)), Integer.signum(held.compare(i, key)),
              "round " + round + ", key " + i + " against " + Arrays.toString(key));
        }
        for (int j = 0; j < others.length; j++) {
          assertEquals(Integer.signum(Arrays.compareUnsigned(keys[i], others[j])), Integer.signum(held.compare(i, otherHeld, j)),
              "round " + round + ", key " + i + " against other key " + j);
        }
        assertEquals(0, held.compare(i, held, i));
      }
    }
  }

  @Test
  void anEntryOfPrefixedKeysChecksumsItsWholeKeys() {
    // The column checksum stored entries carry: the keys back to back, each key's end as 4 bytes,
    // then the positions; computed here from the whole keys, as their writer laid them out.
    byte[][] keys = sortedKeys(3000);
    int[] offsets = offsets(keys);
    byte[] data = backToBack(keys, offsets);
    int[] positions = new int[keys.length];
    for (int i = 0; i < positions.length; i++) {
      positions[i] = i % 2 == 0 ? i + 1 : i - 1; // neighbours swapped: not in order, so held
    }
    CRC32C expected = new CRC32C();
    expected.update(data);
    ByteBuffer numbers = ByteBuffer.allocate(4 * keys.length * 2);
    for (int i = 0; i < keys.length; i++) {
      numbers.putInt(offsets[i + 1]);
    }
    for (int position : positions) {
      numbers.putInt(position);
    }
    expected.update(numbers.array());

    KeyIndexEntry entry = new KeyIndexEntry(null, data, offsets, positions, null, null);
    assertEquals(expected.getValue(), KeyIndexFiles.columnChecksum(entry));
    assertArrayEquals(data, entry.keyData());
    assertArrayEquals(offsets, entry.keyOffsets());
    assertArrayEquals(positions, entry.positionArray());
  }
}
