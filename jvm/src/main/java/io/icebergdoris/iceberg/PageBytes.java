package io.icebergdoris.iceberg;

import java.nio.ByteBuffer;

/** A Parquet page's bytes as an array and a range in it (the buffer's own array when it has one). */
final class PageBytes {
  final byte[] bytes;
  final int from;
  final int limit;

  private PageBytes(byte[] bytes, int from, int limit) {
    this.bytes = bytes;
    this.from = from;
    this.limit = limit;
  }

  static PageBytes of(ByteBuffer buffer) {
    if (buffer.hasArray()) {
      int from = buffer.arrayOffset() + buffer.position();
      return new PageBytes(buffer.array(), from, from + buffer.remaining());
    }
    byte[] copy = new byte[buffer.remaining()];
    buffer.duplicate().get(copy);
    return new PageBytes(copy, 0, copy.length);
  }
}
