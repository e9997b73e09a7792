package io.icebergdoris.keyindex.pages;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** PLAIN values are read little-endian, and never past their page's end. */
class PlainValuesTest {

  @Test
  void littleEndianValuesAreReadWithinTheirPage() {
    byte[] bytes = {1, 0, 0, (byte) 0x80, 2, 0, 0, 0, 0, 0, 0, 0x40};
    assertEquals(0x80000001, PlainValues.intLittleEndian(bytes, 0, bytes.length));
    assertEquals(0x4000000000000002L, PlainValues.longLittleEndian(bytes, 4));
    // A value running past the page's end (though not the array's) is refused.
    assertThrows(IllegalStateException.class, () -> PlainValues.intLittleEndian(bytes, 2, 5));
    assertThrows(IllegalStateException.class, () -> PlainValues.intLittleEndian(bytes, -1, 5));
  }
}
