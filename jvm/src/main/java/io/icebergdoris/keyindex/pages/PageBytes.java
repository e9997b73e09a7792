package io.icebergdoris.keyindex.pages;

import java.nio.ByteBuffer;

/** A Parquet page's bytes as an array and a range in it (the buffer's own array when it has one). */
public final class PageBytes {
  public final byte[] bytes;
  public final int from;
  public final int limit;

  private PageBytes(byte[] bytes, int from, int limit) {
    this.bytes = bytes;
    this.from = from;
    this.limit = limit;
  }

  public static PageBytes of(ByteBuffer buffer) {
    if (buffer.hasArray()) {
      int from = buffer.arrayOffset() + buffer.position();
      return new PageBytes(buffer.array(), from, from + buffer.remaining());
    }
    byte[] copy = new byte[buffer.remaining()];
    buffer.duplicate().get(copy);
    return new PageBytes(copy, 0, copy.length);
  }
}
