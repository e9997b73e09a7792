package io.icebergdoris.keyindex.pages;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** A page's bytes as an array range: the buffer's remaining bytes, whatever kind of buffer holds them, the buffer untouched. */
class PageBytesTest {

  private static final byte[] DATA = {10, 11, 12, 13, 14, 15, 16, 17, 18, 19};

  private static byte[] range(PageBytes page) {
    return Arrays.copyOfRange(page.bytes, page.from, page.limit);
  }

  @Test
  void aHeapSliceIsReadInPlaceFromItsOffset() {
    // A slice of a slice: the array offset and the position both count.
    ByteBuffer slice = ByteBuffer.wrap(DATA, 2, 6).slice();
    slice.position(1);
    PageBytes page = PageBytes.of(slice);
    assertSame(DATA, page.bytes, "no copy of a heap buffer's array");
    assertArrayEquals(new byte[] {13, 14, 15, 16, 17}, range(page));
    assertEquals(1, slice.position(), "the buffer's position is left alone");
  }

  @Test
  void directAndReadOnlyBuffersAreCopied() {
    ByteBuffer direct = ByteBuffer.allocateDirect(DATA.length);
    direct.put(DATA).flip().position(3);
    assertArrayEquals(Arrays.copyOfRange(DATA, 3, 10), range(PageBytes.of(direct)));
    assertEquals(3, direct.position());

    ByteBuffer readOnly = ByteBuffer.wrap(DATA, 4, 3).asReadOnlyBuffer();
    PageBytes page = PageBytes.of(readOnly);
    assertArrayEquals(new byte[] {14, 15, 16}, range(page));
    assertEquals(0, page.from);
  }

  @Test
  void anEmptyBufferIsAnEmptyRange() {
    ByteBuffer empty = ByteBuffer.wrap(DATA, 5, 0);
    PageBytes page = PageBytes.of(empty);
    assertEquals(page.from, page.limit);
  }
}
