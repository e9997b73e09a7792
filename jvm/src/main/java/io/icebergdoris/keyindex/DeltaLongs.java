package io.icebergdoris.keyindex;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Decodes a page of Parquet's DELTA_BINARY_PACKED 64-bit integers straight into a long array: the
 * integer keys and sequence values of a key-index entry. Parquet's own reader unpacks a page into
 * a buffer of its own and hands the values out one call each; reading a 5M-row entry with a
 * sequence column spent a third of its time there.
 *
 * <p>The encoding: a header (values per block, miniblocks per block, value count, first value),
 * then per block its smallest delta and each miniblock's bit width, then the miniblocks: the deltas
 * less the smallest, bit-packed least significant bit first. Malformed input (a truncated page, a
 * count other than the page's, an impossible header or width) throws; what decodes wrongly but
 * plausibly is caught by the entry's checksum.
 */
final class DeltaLongs {
  private static final VarHandle LONG_LITTLE_ENDIAN = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private final byte[] bytes;
  private final int limit;
  private int at;

  private DeltaLongs(byte[] bytes, int from, int limit) {
    this.bytes = bytes;
    this.at = from;
    this.limit = limit;
  }

  /** Decodes the page in {@code bytes[from, limit)}, which must hold {@code count} values, into {@code into[start..]}. */
  static void decode(byte[] bytes, int from, int limit, long[] into, int start, int count) {
    DeltaLongs in = new DeltaLongs(bytes, from, limit);
    long blockSize = in.unsigned();
    long miniblocks = in.unsigned();
    long total = in.unsigned();
    long value = in.zigzag();
    if (blockSize <= 0 || blockSize > (1 << 20) || miniblocks <= 0 || blockSize % miniblocks != 0 || (blockSize / miniblocks) % 8 != 0) {
      throw damaged("a block of " + blockSize + " values in " + miniblocks + " miniblocks");
    }
    if (total != count) {
      throw damaged(total + " values where the page has " + count);
    }
    if (count == 0) {
      return;
    }
    int perMiniblock = (int) (blockSize / miniblocks);
    int end = start + count;
    int next = start;
    into[next++] = value;
    while (next < end) {
      long smallest = in.zigzag();
      int widths = in.at;
      in.skip(miniblocks);
      for (int m = 0; m < miniblocks && next < end; m++) {
        int width = bytes[widths + m] & 0xff;
        if (width > 64) {
          throw damaged("a miniblock of " + width + "-bit deltas");
        }
        int length = perMiniblock / 8 * width; // a miniblock is padded to its full length
        int base = in.at;
        in.skip(length);
        int values = Math.min(perMiniblock, end - next);
        value = unpack(bytes, base, base + length, width, smallest, value, into, next, values);
        next += values;
      }
    }
  }

  /** Adds {@code values} deltas of {@code width} bits at {@code bytes[base]} to {@code value}, storing each sum. */
  private static long unpack(
      byte[] bytes, int base, int limit, int width, long smallest, long value, long[] into, int next, int values) {
    if (width == 0) {
      for (int i = 0; i < values; i++) {
        value += smallest;
        into[next + i] = value;
      }
      return value;
    }
    long mask = width == 64 ? -1L : (1L << width) - 1;
    long bit = 0;
    for (int i = 0; i < values; i++, bit += width) {
      long delta = bits(bytes, base + (int) (bit >>> 3), limit, (int) (bit & 7), width) & mask;
      value += smallest + delta;
      into[next + i] = value;
    }
    return value;
  }

  /**
   * The bits from bit {@code shift} of {@code bytes[at]} on, least significant first, as Parquet
   * packs them; at least {@code width} of them are right (the caller masks), none read from
   * {@code limit} on. Shared by the hybrid decoder ({@link Hybrid}).
   */
  static long bits(byte[] bytes, int at, int limit, int shift, int width) {
    if (width <= 56 && at + 8 <= bytes.length) {
      // Bits past the run fall outside the caller's mask.
      return (long) LONG_LITTLE_ENDIAN.get(bytes, at) >>> shift;
    }
    return slowBits(bytes, at, limit, shift, width);
  }

  /** The {@code width} bits from bit {@code shift} of {@code bytes[at]} on, byte by byte (the last bytes, or wide deltas). */
  private static long slowBits(byte[] bytes, int at, int limit, int shift, int width) {
    long result = 0;
    int needed = (shift + width + 7) / 8;
    for (int k = 0; k < needed && at + k < limit; k++) {
      long b = bytes[at + k] & 0xffL;
      int position = 8 * k - shift;
      if (position >= 64) {
        break;
      }
      result |= position >= 0 ? b << position : b >>> -position;
    }
    return result;
  }

  private void skip(long count) {
    if (count < 0 || count > limit - at) {
      throw damaged("a page shorter than its values");
    }
    at += (int) count;
  }

  private long unsigned() {
    long result = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (at >= limit) {
        throw damaged("a page shorter than its header");
      }
      byte b = bytes[at++];
      result |= (long) (b & 0x7f) << shift;
      if (b >= 0) {
        return result;
      }
    }
    throw damaged("a variable-length integer of more than 64 bits");
  }

  private long zigzag() {
    long raw = unsigned();
    return (raw >>> 1) ^ -(raw & 1);
  }

  private static IllegalStateException damaged(String what) {
    return new IllegalStateException("a damaged DELTA_BINARY_PACKED page: " + what);
  }
}
