package io.icebergdoris.keyindex;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Encoded keys packed to travel between JVMs: unpacked, they must be the same arrays, nulls and empty ones included. */
class PackedBytesTest {

  @Test
  void unpacksTheSameArraysNullAndEmptyOnesIncluded() {
    byte[][] arrays = {{1, 2, 3}, null, {}, {0}, null, {(byte) 0xff, 0, 7}};
    assertArrayEquals(arrays, PackedBytes.of(arrays, arrays.length).unpack());
  }

  @Test
  void packsOnlyTheFirstCountArrays() {
    byte[][] arrays = {{1}, {2}, {3}};
    assertArrayEquals(new byte[][] {{1}, {2}}, PackedBytes.of(arrays, 2).unpack());
    assertEquals(0, PackedBytes.of(arrays, 0).unpack().length);
  }

  @Test
  void blocksEndBeforeTheArrayThatWouldOverfillThem() {
    // Blocks of at most 10 bytes: [4, 4] fill one, the next 4 starts another, and an array longer
    // than a block gets one of its own rather than being split.
    byte[][] arrays = {new byte[4], new byte[4], new byte[4], new byte[25], new byte[1]};
    PackedBytes packed = PackedBytes.of(arrays, arrays.length, 10);
    assertEquals(4, packed.blockCount());
    assertArrayEquals(arrays, packed.unpack());
  }

  @Test
  void randomArraysSurviveJavaSerializationInSmallBlocks() throws IOException, ClassNotFoundException {
    Random random = new Random(11);
    for (int round = 0; round < 20; round++) {
      byte[][] arrays = new byte[random.nextInt(200)][];
      for (int i = 0; i < arrays.length; i++) {
        if (random.nextInt(10) > 0) {
          arrays[i] = new byte[random.nextInt(30)];
          random.nextBytes(arrays[i]);
        }
      }
      PackedBytes packed = PackedBytes.of(arrays, arrays.length, 1 + random.nextInt(64));
      assertArrayEquals(arrays, roundTrip(packed).unpack(), "round " + round);
    }
  }

  @Test
  void aMissingArrayIsNullNotEmpty() {
    byte[][] unpacked = PackedBytes.of(new byte[][] {null, {}}, 2).unpack();
    assertNull(unpacked[0]);
    assertEquals(0, unpacked[1].length);
  }

  private static PackedBytes roundTrip(PackedBytes packed) throws IOException, ClassNotFoundException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(packed);
    }
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      return (PackedBytes) in.readObject();
    }
  }
}
