package io.icebergdoris.keyindex;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The growable byte array keys are built in must hold exactly what was written, in order, past any capacity. */
class KeyBytesTest {

  @Test
  void growsPastItsCapacityKeepingEveryByteInOrder() throws IOException {
    // The reference: a DataOutputStream writes the same calls (big-endian longs, low byte of an int).
    Random random = new Random(7);
    for (int capacity : new int[] {0, 1, 8, 16}) {
      KeyBytes bytes = new KeyBytes(capacity);
      ByteArrayOutputStream expected = new ByteArrayOutputStream();
      DataOutputStream reference = new DataOutputStream(expected);
      for (int i = 0; i < 500; i++) {
        switch (random.nextInt(3)) {
          case 0:
            int value = random.nextInt(); // only its low byte is written
            bytes.write(value);
            reference.write(value);
            break;
          case 1:
            long number = random.nextLong();
            bytes.writeBigEndian(number);
            reference.writeLong(number);
            break;
          default:
            byte[] chunk = new byte[random.nextInt(40)];
            random.nextBytes(chunk);
            int offset = chunk.length == 0 ? 0 : random.nextInt(chunk.length);
            int length = chunk.length - offset == 0 ? 0 : random.nextInt(chunk.length - offset + 1);
            bytes.write(chunk, offset, length);
            reference.write(chunk, offset, length);
        }
      }
      assertArrayEquals(expected.toByteArray(), bytes.toByteArray(), "capacity " + capacity);
    }
  }

  @Test
  void theArrayHandedOutIsACopyOfWhatWasWritten() {
    KeyBytes bytes = new KeyBytes(4);
    bytes.write(1);
    byte[] first = bytes.toByteArray();
    bytes.write(2);
    first[0] = 9;
    assertArrayEquals(new byte[] {1, 2}, bytes.toByteArray());
    assertEquals(0, new KeyBytes(16).toByteArray().length);
  }
}
