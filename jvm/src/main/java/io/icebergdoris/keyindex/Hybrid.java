package io.icebergdoris.keyindex;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Parquet's RLE / bit-packing hybrid encoding (definition levels, dictionary ids), decoded into an
 * int array, and the little-endian reads of PLAIN values; bounds are checked against the page, so a
 * damaged page raises instead of reading past it.
 */
final class Hybrid {
  private Hybrid() {}

  private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  /** The little-endian int at {@code at}, which must end by {@code limit}. */
  static int intLittleEndian(byte[] bytes, int at, int limit) {
    if (at < 0 || at + 4 > limit) {
      throw new IllegalStateException("a Parquet page ends inside a value");
    }
    return (int) INTS.get(bytes, at);
  }

  /** The little-endian long at {@code at} (the caller checked it lies in the page). */
  static long longLittleEndian(byte[] bytes, int at) {
    return (long) LONGS.get(bytes, at);
  }

  /**
   * The run header (an unsigned varint of at most 5 bytes) at {@code at}: its value shifted left by
   * 3 bits, or'ed with its length in bytes; -1 if it does not end by {@code limit}.
   */
  private static long runHeader(byte[] bytes, int at, int limit) {
    long header = 0;
    int shift = 0;
    int length = 0;
    int b;
    do {
      if (at + length >= limit || shift > 28) {
        return -1;
      }
      b = bytes[at + length++] & 0xFF;
      header |= (long) (b & 0x7F) << shift;
      shift += 7;
    } while ((b & 0x80) != 0);
    return header << 3 | length;
  }

  /** The value a repeated run repeats: {@code valueBytes} little-endian bytes at {@code at} (the caller checked they lie in the page). */
  private static int runValue(byte[] bytes, int at, int valueBytes) {
    int value = 0;
    for (int i = 0; i < valueBytes; i++) {
      value |= (bytes[at + i] & 0xFF) << (8 * i);
    }
    return value;
  }

  /**
   * Whether the first {@code count} values of the hybrid run sequence at {@code bytes[from, limit)}
   * ({@code bitWidth} bits each) are all {@code value}, judged from repeated runs alone: false as
   * soon as a run holds another value or the values are bit-packed (the caller then decodes them).
   * A page without NULLs is written as one run of its rows' definition level, so it is recognised
   * without decoding a level per row.
   */
  static boolean allRunsOf(byte[] bytes, int from, int limit, int bitWidth, int value, int count) {
    int valueBytes = (bitWidth + 7) / 8;
    int at = from;
    long n = 0;
    while (n < count) {
      long read = runHeader(bytes, at, limit);
      if (read < 0) {
        return false; // damaged or short: the full decode says so
      }
      long header = read >>> 3;
      at += (int) (read & 7);
      if ((header & 1) != 0 || at + valueBytes > limit) {
        return false;
      }
      if (runValue(bytes, at, valueBytes) != value || header >>> 1 == 0) {
        return false;
      }
      at += valueBytes;
      n += header >>> 1;
    }
    return true;
  }

  /**
   * Decodes the first {@code count} values of the hybrid run sequence at {@code bytes[from,
   * limit)}, each {@code bitWidth} bits wide, into {@code out}.
   */
  static void decode(byte[] bytes, int from, int limit, int bitWidth, int[] out, int count) {
    if (bitWidth < 0 || bitWidth > 32) {
      throw new IllegalStateException("a Parquet page with values " + bitWidth + " bits wide");
    }
    int valueBytes = (bitWidth + 7) / 8;
    long mask = bitWidth == 32 ? 0xFFFFFFFFL : (1L << bitWidth) - 1;
    int at = from;
    int n = 0;
    while (n < count) {
      long read = runHeader(bytes, at, limit);
      if (read < 0) {
        throw new IllegalStateException("a Parquet page whose levels or ids end early");
      }
      long header = read >>> 3;
      at += (int) (read & 7);
      if ((header & 1) == 0) { // a run of one repeated value
        if (at + valueBytes > limit) {
          throw new IllegalStateException("a Parquet page whose levels or ids end early");
        }
        int value = runValue(bytes, at, valueBytes);
        at += valueBytes;
        int end = (int) Math.min(count, n + (header >>> 1));
        Arrays.fill(out, n, end, value);
        n = end;
      } else { // groups of 8 bit-packed values, least significant bit first
        long groupBytes = (header >>> 1) * bitWidth;
        int needed = (int) Math.min(count - n, (header >>> 1) * 8);
        if (at + ((long) needed * bitWidth + 7) / 8 > limit) {
          throw new IllegalStateException("a Parquet page whose levels or ids end early");
        }
        for (int i = 0; i < needed; i++) {
          long bit = (long) i * bitWidth;
          out[n + i] = (int) (DeltaLongs.bits(bytes, at + (int) (bit >>> 3), limit, (int) (bit & 7), bitWidth) & mask);
        }
        n += needed;
        at = (int) Math.min(limit, at + groupBytes);
      }
    }
  }
}
