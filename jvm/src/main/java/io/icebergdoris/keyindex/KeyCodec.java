package io.icebergdoris.keyindex;

import java.io.Serializable;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.Arrays;
import java.util.List;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.util.DateTimeUtils;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The order-preserving byte encoding of a primary key, as Doris encodes its keys for its primary
 * key index: each column's value encoded so that unsigned byte order is the value order, then the
 * columns concatenated. Integers (and DATE/DATETIME, by their integer representation) are 8
 * bytes big-endian with the sign bit flipped; DECIMAL is its unscaled value at the column's scale
 * (8 bytes up to precision 18, else 16, two's complement with the sign bit flipped); BOOLEAN one
 * byte; strings their UTF-8 bytes with 0x00 escaped as 0x00 0x01 and terminated by 0x00 0x00, so a
 * string sorts before every longer string it is a prefix of and the next column cannot bleed in.
 *
 * <p>The same codec reads a data file's rows (Spark's internal values, as Iceberg's Parquet reader
 * returns them) and a batch's rows (Spark's external values): both must give the same bytes.
 * A key of one integer-like column (INT, BIGINT, DATE, DATETIME) is also available as a plain
 * {@code long}: the index's fast path.
 */
final class KeyCodec implements Serializable {
  private static final long serialVersionUID = 1L;

  enum Kind {
    INT, // INTEGER and DATE: an int internally
    LONG, // LONG and TIMESTAMP: a long internally
    DECIMAL,
    STRING,
    BOOLEAN
  }

  private final Kind[] kinds;
  private final int[] precisions;
  private final int[] scales;
  private final String description;

  private KeyCodec(Kind[] kinds, int[] precisions, int[] scales, String description) {
    this.kinds = kinds;
    this.precisions = precisions;
    this.scales = scales;
    this.description = description;
  }

  /** The codec of these Iceberg key column types; IllegalArgumentException for a type it cannot encode. */
  static KeyCodec of(List<Types.NestedField> columns) {
    Kind[] kinds = new Kind[columns.size()];
    int[] precisions = new int[columns.size()];
    int[] scales = new int[columns.size()];
    StringBuilder description = new StringBuilder();
    for (int i = 0; i < kinds.length; i++) {
      Types.NestedField field = columns.get(i);
      kinds[i] = kind(field.type());
      if (field.type() instanceof Types.DecimalType) {
        precisions[i] = ((Types.DecimalType) field.type()).precision();
        scales[i] = ((Types.DecimalType) field.type()).scale();
      }
      description.append(i == 0 ? "" : ",").append(field.fieldId()).append(':').append(field.type());
    }
    return new KeyCodec(kinds, precisions, scales, description.toString());
  }

  static Kind kind(Type type) {
    switch (type.typeId()) {
      case INTEGER:
      case DATE:
        return Kind.INT;
      case LONG:
      case TIMESTAMP:
        return Kind.LONG;
      case DECIMAL:
        return Kind.DECIMAL;
      case STRING:
        return Kind.STRING;
      case BOOLEAN:
        return Kind.BOOLEAN;
      default:
        throw new IllegalArgumentException("The key index cannot encode keys of type " + type);
    }
  }

  /** Field ids and types of the key columns: part of an entry's identity. */
  String description() {
    return description;
  }

  int columns() {
    return kinds.length;
  }

  Kind kindOf(int column) {
    return kinds[column];
  }

  int precisionOf(int column) {
    return precisions[column];
  }

  int scaleOf(int column) {
    return scales[column];
  }

  /** Whether the key is one integer-like column, compared as a plain long. */
  boolean singleLong() {
    return kinds.length == 1 && (kinds[0] == Kind.INT || kinds[0] == Kind.LONG);
  }

  // ---- a data file's rows: Spark's internal values ----

  boolean anyNull(InternalRow row) {
    for (int i = 0; i < kinds.length; i++) {
      if (row.isNullAt(i)) {
        return true;
      }
    }
    return false;
  }

  long internalLong(InternalRow row, int ordinal) {
    return kinds[ordinal] == Kind.INT ? row.getInt(ordinal) : row.getLong(ordinal);
  }

  byte[] encode(InternalRow row) {
    KeyBytes out = new KeyBytes(16);
    for (int i = 0; i < kinds.length; i++) {
      switch (kinds[i]) {
        case INT:
          writeLong(out, row.getInt(i));
          break;
        case LONG:
          writeLong(out, row.getLong(i));
          break;
        case DECIMAL:
          if (precisions[i] <= 18) {
            writeLong(out, row.getDecimal(i, precisions[i], scales[i]).toUnscaledLong());
          } else {
            writeWide(out, row.getDecimal(i, precisions[i], scales[i]).toJavaBigDecimal().setScale(scales[i]).unscaledValue());
          }
          break;
        case STRING:
          writeString(out, row.getUTF8String(i).getBytes());
          break;
        case BOOLEAN:
          out.write(row.getBoolean(i) ? 1 : 0);
          break;
      }
    }
    return out.toByteArray();
  }

  // ---- a batch's rows: Spark's external values, columns from {@code first} on ----

  boolean anyNull(Row row, int first) {
    for (int i = 0; i < kinds.length; i++) {
      if (row.isNullAt(first + i)) {
        return true;
      }
    }
    return false;
  }

  long externalLong(Object value) {
    if (value instanceof Number) {
      return ((Number) value).longValue();
    }
    if (value instanceof java.sql.Date) {
      return DateTimeUtils.fromJavaDate((java.sql.Date) value);
    }
    if (value instanceof LocalDate) {
      return DateTimeUtils.localDateToDays((LocalDate) value);
    }
    if (value instanceof java.sql.Timestamp) {
      return DateTimeUtils.fromJavaTimestamp((java.sql.Timestamp) value);
    }
    if (value instanceof Instant) {
      return DateTimeUtils.instantToMicros((Instant) value);
    }
    if (value instanceof LocalDateTime) {
      return DateTimeUtils.localDateTimeToMicros((LocalDateTime) value);
    }
    throw new IllegalArgumentException("The key index cannot read " + value.getClass().getName() + " as an integer");
  }

  byte[] encode(Row row, int first) {
    KeyBytes out = new KeyBytes(16);
    for (int i = 0; i < kinds.length; i++) {
      writeExternal(out, i, row.get(first + i));
    }
    return out.toByteArray();
  }

  /** Key column {@code column}'s external value (as {@link #encode(Row, int)} reads it) onto {@code out}. */
  void writeExternal(KeyBytes out, int column, Object value) {
    switch (kinds[column]) {
      case INT:
      case LONG:
        writeLong(out, externalLong(value));
        break;
      case DECIMAL:
        BigInteger unscaled = ((BigDecimal) value).setScale(scales[column]).unscaledValue();
        if (precisions[column] <= 18) {
          writeLong(out, unscaled.longValueExact());
        } else {
          writeWide(out, unscaled);
        }
        break;
      case STRING:
        writeString(out, ((String) value).getBytes(StandardCharsets.UTF_8));
        break;
      case BOOLEAN:
        out.write((Boolean) value ? 1 : 0);
        break;
    }
  }

  // ---- back to Spark's internal values ----

  /**
   * The key columns' internal values (as a data file's reader gives them) of a key of the fast path:
   * the long the batch collected for its one integer-like column.
   */
  Object[] internalValues(long key) {
    return new Object[] {kinds[0] == Kind.INT ? (Object) (int) key : (Object) key};
  }

  /**
   * The key columns' internal values of an encoded key, the inverse of {@link #encode(InternalRow)}:
   * a hit read by position takes its key from the batch key it matched instead of from its file.
   */
  Object[] internalValues(byte[] key) {
    Object[] values = new Object[kinds.length];
    int at = 0;
    for (int i = 0; i < kinds.length; i++) {
      switch (kinds[i]) {
        case INT:
          values[i] = (int) readLong(key, at);
          at += 8;
          break;
        case LONG:
          values[i] = readLong(key, at);
          at += 8;
          break;
        case DECIMAL:
          if (precisions[i] <= 18) {
            values[i] = Decimal.createUnsafe(readLong(key, at), precisions[i], scales[i]);
            at += 8;
          } else {
            byte[] wide = Arrays.copyOfRange(key, at, at + 16);
            wide[0] ^= (byte) 0x80;
            values[i] = Decimal.apply(new BigDecimal(new BigInteger(wide), scales[i]), precisions[i], scales[i]);
            at += 16;
          }
          break;
        case STRING:
          KeyBytes text = new KeyBytes(16);
          // 0x00 0x01 is an escaped 0x00; 0x00 0x00 ends the string.
          while (!(key[at] == 0 && key[at + 1] == 0)) {
            text.write(key[at]);
            at += key[at] == 0 ? 2 : 1;
          }
          values[i] = UTF8String.fromBytes(text.toByteArray());
          at += 2;
          break;
        case BOOLEAN:
          values[i] = key[at++] != 0;
          break;
      }
    }
    if (at != key.length) {
      throw new IllegalArgumentException("an encoded key of " + key.length + " bytes holds " + at + " bytes of " + description);
    }
    return values;
  }

  private static long readLong(byte[] bytes, int at) {
    long value = 0;
    for (int i = at; i < at + 8; i++) {
      value = (value << 8) | (bytes[i] & 0xff);
    }
    return value ^ Long.MIN_VALUE;
  }

  // ---- the encodings ----

  static void writeLong(KeyBytes out, long value) {
    out.writeBigEndian(value ^ Long.MIN_VALUE);
  }

  /** A long key as its 8 encoded bytes (what an entry file stores for the fast path too). */
  static byte[] longBytes(long value) {
    KeyBytes out = new KeyBytes(8);
    writeLong(out, value);
    return out.toByteArray();
  }

  static long bytesLong(byte[] bytes) {
    if (bytes.length != 8) {
      throw new IllegalArgumentException("an integer key is 8 bytes, not " + bytes.length);
    }
    return readLong(bytes, 0);
  }

  private static void writeWide(KeyBytes out, BigInteger value) {
    byte[] twos = value.toByteArray(); // big-endian, minimal length, sign-extended below
    if (twos.length > 16) {
      throw new IllegalArgumentException("a DECIMAL key beyond 128 bits: " + value);
    }
    byte fill = (byte) (value.signum() < 0 ? 0xff : 0);
    byte[] wide = new byte[16];
    int pad = 16 - twos.length;
    for (int i = 0; i < pad; i++) {
      wide[i] = fill;
    }
    System.arraycopy(twos, 0, wide, pad, twos.length);
    wide[0] ^= (byte) 0x80;
    out.write(wide, 0, 16);
  }

  static void writeString(KeyBytes out, byte[] bytes) {
    // Runs without a 0x00 are copied whole: string keys rarely hold a 0x00.
    int run = 0;
    for (int i = 0; i < bytes.length; i++) {
      if (bytes[i] == 0) {
        out.write(bytes, run, i + 1 - run);
        out.write(1);
        run = i + 1;
      }
    }
    out.write(bytes, run, bytes.length - run);
    out.write(0);
    out.write(0);
  }
}
