package io.icebergdoris.keyindex.pages;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The little-endian reads of Parquet's PLAIN values (and the length prefixes of BINARY values and
 * V1 definition levels) out of a page's bytes; bounds are checked against the page, so a damaged
 * page raises instead of reading past it. Run-length and bit-packed data are decoded by Parquet's
 * own decoders, not here.
 */
public final class PlainValues {
  private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private PlainValues() {}

  /** The little-endian int at {@code at}, which must end by {@code limit}. */
  public static int intLittleEndian(byte[] bytes, int at, int limit) {
    if (at < 0 || at + 4 > limit) {
      throw new IllegalStateException("a Parquet page ends inside a value");
    }
    return (int) INTS.get(bytes, at);
  }

  /** The little-endian long at {@code at} (the caller checked it lies in the page). */
  public static long longLittleEndian(byte[] bytes, int at) {
    return (long) LONGS.get(bytes, at);
  }
}
