package io.icebergdoris.keyindex;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.function.Function;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

/**
 * The order-preserving key encoding: unsigned byte order of the encodings must be the order of the
 * values (column by column for composite keys), equal encodings must mean equal keys, decoding
 * must give the key back, and a batch's external values must encode as a data file's internal
 * ones (the index matches them byte for byte).
 */
class KeyCodecTest {

  private static final Random RANDOM = new Random(20240229);

  static KeyCodec codec(Type... types) {
    List<Types.NestedField> fields = new ArrayList<>();
    for (int i = 0; i < types.length; i++) {
      fields.add(Types.NestedField.required(i + 1, "c" + i, types[i]));
    }
    return KeyCodec.of(fields);
  }

  /** The encoding of one key given as Spark internal values (as a data file's reader returns them). */
  static byte[] encode(KeyCodec codec, Object... internal) {
    return codec.encode(new GenericInternalRow(internal));
  }

  /**
   * For every pair of values, the encodings compare (unsigned, shorter first) with the sign the
   * values compare with: order preserved, and equal encodings only for equal values.
   */
  private static <T> void assertOrderPreserved(List<T> values, Comparator<T> valueOrder, Function<T, byte[]> encoding) {
    List<byte[]> encoded = new ArrayList<>();
    for (T value : values) {
      encoded.add(encoding.apply(value));
    }
    for (int i = 0; i < values.size(); i++) {
      for (int j = 0; j < values.size(); j++) {
        T a = values.get(i);
        T b = values.get(j);
        int expected = Integer.signum(valueOrder.compare(a, b));
        int actual = Integer.signum(Arrays.compareUnsigned(encoded.get(i), encoded.get(j)));
        assertEquals(expected, actual, () -> "encodings of " + a + " and " + b);
      }
    }
  }

  @Test
  void bigintKeysSortAsTheirValuesNegativesFirst() {
    List<Long> values = new ArrayList<>(List.of(
        Long.MIN_VALUE, Long.MIN_VALUE + 1, -(1L << 32), -256L, -255L, -1L, 0L, 1L, 127L, 128L, 255L, 256L,
        (long) Integer.MAX_VALUE, 1L << 31, Long.MAX_VALUE - 1, Long.MAX_VALUE));
    for (int i = 0; i < 150; i++) {
      values.add(RANDOM.nextLong() >> RANDOM.nextInt(64)); // every magnitude
    }
    KeyCodec codec = codec(Types.LongType.get());
    assertOrderPreserved(values, Long::compare, v -> encode(codec, v));
    assertEquals(8, encode(codec, 42L).length, "an integer key is 8 bytes");
  }

  @Test
  void intAndDateKeysSortAsTheirValues() {
    List<Integer> ints = new ArrayList<>(List.of(Integer.MIN_VALUE, -129, -128, -1, 0, 1, 255, 256, Integer.MAX_VALUE));
    for (int i = 0; i < 100; i++) {
      ints.add(RANDOM.nextInt() >> RANDOM.nextInt(32));
    }
    KeyCodec intCodec = codec(Types.IntegerType.get());
    assertOrderPreserved(ints, Integer::compare, v -> encode(intCodec, v));

    // DATE is an int of days since 1970-01-01 internally: days before 1970 are negative.
    List<LocalDate> dates = new ArrayList<>(List.of(
        LocalDate.of(1, 1, 1), LocalDate.of(1899, 12, 31), LocalDate.of(1969, 12, 31), LocalDate.of(1970, 1, 1),
        LocalDate.of(1970, 1, 2), LocalDate.of(2024, 2, 29), LocalDate.of(9999, 12, 31)));
    for (int i = 0; i < 100; i++) {
      dates.add(LocalDate.ofEpochDay(RANDOM.nextInt(200_000) - 100_000));
    }
    KeyCodec dateCodec = codec(Types.DateType.get());
    assertOrderPreserved(dates, LocalDate::compareTo, d -> encode(dateCodec, (int) d.toEpochDay()));
  }

  @Test
  void timestampKeysSortAsTheirInstants() {
    List<Instant> instants = new ArrayList<>(List.of(
        Instant.parse("1900-01-01T00:00:00Z"), Instant.parse("1969-12-31T23:59:59.999999Z"), Instant.EPOCH,
        Instant.parse("1970-01-01T00:00:00.000001Z"), Instant.parse("2262-04-11T23:47:16Z")));
    for (int i = 0; i < 100; i++) {
      instants.add(Instant.EPOCH.plusSeconds(RANDOM.nextInt()).plusNanos(RANDOM.nextInt(1_000_000) * 1000L));
    }
    for (Type type : List.of(Types.TimestampType.withZone(), Types.TimestampType.withoutZone())) {
      KeyCodec codec = codec(type);
      assertOrderPreserved(instants, Instant::compareTo, t -> encode(codec, micros(t)));
    }
  }

  @Test
  void decimalKeysSortAsTheirValuesInEightOrSixteenBytes() {
    // Precision up to 18: the unscaled value as a long; beyond: 16 bytes of two's complement.
    List<BigDecimal> narrow = new ArrayList<>();
    for (String text : new String[] {"-99999999.99", "-1.00", "-0.01", "0.00", "0.01", "1.00", "99999999.99"}) {
      narrow.add(new BigDecimal(text));
    }
    for (int i = 0; i < 100; i++) {
      narrow.add(BigDecimal.valueOf(RANDOM.nextLong() % 10_000_000_000L, 2));
    }
    KeyCodec narrowCodec = codec(Types.DecimalType.of(10, 2));
    assertOrderPreserved(narrow, BigDecimal::compareTo, d -> encode(narrowCodec, Decimal.apply(d, 10, 2)));
    assertEquals(8, encode(narrowCodec, Decimal.apply(new BigDecimal("1.00"), 10, 2)).length);

    BigInteger largest = BigInteger.TEN.pow(38).subtract(BigInteger.ONE);
    BigInteger twoTo63 = BigInteger.ONE.shiftLeft(63);
    List<BigDecimal> wide = new ArrayList<>();
    for (BigInteger unscaled : List.of(largest.negate(), twoTo63.negate().subtract(BigInteger.ONE), twoTo63.negate(),
        BigInteger.valueOf(-256), BigInteger.ONE.negate(), BigInteger.ZERO, BigInteger.ONE, BigInteger.valueOf(255),
        twoTo63.subtract(BigInteger.ONE), twoTo63, largest)) {
      wide.add(new BigDecimal(unscaled, 6));
    }
    for (int i = 0; i < 100; i++) {
      BigInteger unscaled = new BigInteger(1 + RANDOM.nextInt(126), RANDOM);
      wide.add(new BigDecimal(RANDOM.nextBoolean() ? unscaled : unscaled.negate(), 6));
    }
    KeyCodec wideCodec = codec(Types.DecimalType.of(38, 6));
    assertOrderPreserved(wide, BigDecimal::compareTo, d -> encode(wideCodec, Decimal.apply(d, 38, 6)));
    assertEquals(16, encode(wideCodec, Decimal.apply(BigDecimal.ONE.setScale(6), 38, 6)).length);
  }

  @Test
  void stringKeysSortByCodePointsWithEmbeddedZerosAndPrefixes() {
    // UTF-8 byte order is code point order (not Java's UTF-16 order for characters past U+FFFF).
    List<String> values = new ArrayList<>(List.of(
        "", "\u0000", "\u0000\u0000", "\u0000\u0001", "\u0001", "a", "a\u0000", "a\u0000\u0000", "a\u0000a", "a\u0001",
        "ab", "abc", "b", "\u007f", "\u0080", "é", "\uffff", "\ud83d\ude00", "\ud83d\ude00a"));
    for (int i = 0; i < 100; i++) {
      StringBuilder text = new StringBuilder();
      int length = RANDOM.nextInt(6);
      for (int c = 0; c < length; c++) {
        // Few characters, zeros among them: shared prefixes and escapes are likely.
        text.appendCodePoint(new int[] {0, 1, 'a', 'b', 0xe9, 0x1f600}[RANDOM.nextInt(6)]);
      }
      values.add(text.toString());
    }
    KeyCodec codec = codec(Types.StringType.get());
    assertOrderPreserved(values, KeyCodecTest::compareCodePoints, s -> encode(codec, UTF8String.fromString(s)));
  }

  @Test
  void booleanKeysAreOneByteFalseFirst() {
    KeyCodec codec = codec(Types.BooleanType.get());
    assertOrderPreserved(List.of(true, false), Boolean::compare, b -> encode(codec, b));
    assertEquals(1, encode(codec, true).length);
  }

  @Test
  void compositeKeysSortColumnByColumnAndAStringNeverBleedsIntoTheNextColumn() {
    // Without the terminator, "a" followed by a number could sort after "a\0" followed by another.
    String[] strings = {"", "\u0000", "a", "a\u0000", "a\u0001", "ab", "b"};
    long[] longs = {Long.MIN_VALUE, -1, 0, 1, 255, Long.MAX_VALUE};
    List<Object[]> keys = new ArrayList<>();
    for (String s : strings) {
      for (long l : longs) {
        keys.add(new Object[] {s, l});
      }
    }
    KeyCodec stringThenLong = codec(Types.StringType.get(), Types.LongType.get());
    Comparator<Object[]> byStringThenLong = Comparator.<Object[], String>comparing(k -> (String) k[0], KeyCodecTest::compareCodePoints)
        .thenComparing(k -> (Long) k[1]);
    assertOrderPreserved(keys, byStringThenLong, k -> encode(stringThenLong, UTF8String.fromString((String) k[0]), k[1]));

    // DATE + BIGINT, the common partitioned key, and four kinds at once, from random values.
    List<Object[]> mixed = new ArrayList<>();
    for (int i = 0; i < 150; i++) {
      mixed.add(new Object[] {
        RANDOM.nextInt(5) - 2, (long) RANDOM.nextInt(5) - 2, strings[RANDOM.nextInt(strings.length)], RANDOM.nextBoolean(),
        BigDecimal.valueOf(RANDOM.nextInt(7) - 3, 1)});
    }
    KeyCodec dateThenLong = codec(Types.DateType.get(), Types.LongType.get());
    Comparator<Object[]> byDateThenLong = Comparator.<Object[], Integer>comparing(k -> (Integer) k[0]).thenComparing(k -> (Long) k[1]);
    assertOrderPreserved(mixed, byDateThenLong, k -> encode(dateThenLong, k[0], k[1]));

    KeyCodec four = codec(Types.StringType.get(), Types.BooleanType.get(), Types.DecimalType.of(5, 1), Types.IntegerType.get());
    Comparator<Object[]> byFour = Comparator.<Object[], String>comparing(k -> (String) k[2], KeyCodecTest::compareCodePoints)
        .thenComparing(k -> (Boolean) k[3])
        .thenComparing(k -> (BigDecimal) k[4])
        .thenComparing(k -> (Integer) k[0]);
    assertOrderPreserved(mixed, byFour,
        k -> encode(four, UTF8String.fromString((String) k[2]), k[3], Decimal.apply((BigDecimal) k[4], 5, 1), k[0]));
  }

  @Test
  void theIndexsSortOfEncodedKeysIsTheValueOrderOfDateBigintKeys() {
    // EncodedKeyOrder compares 16-byte prefixes as longs: a DATE+BIGINT key is exactly 16 bytes,
    // and a STRING+BIGINT key longer, so both of its comparison paths see real keys.
    for (boolean strings : new boolean[] {false, true}) {
      KeyCodec codec = strings ? codec(Types.StringType.get(), Types.LongType.get()) : codec(Types.DateType.get(), Types.LongType.get());
      int count = 2000;
      Object[][] keys = new Object[count][];
      byte[][] encoded = new byte[count][];
      for (int i = 0; i < count; i++) {
        Object first = strings ? (Object) ("k" + RANDOM.nextInt(40)) : (Object) (RANDOM.nextInt(200) - 100);
        keys[i] = new Object[] {first, RANDOM.nextLong() >> RANDOM.nextInt(64)};
        encoded[i] = encode(codec, strings ? UTF8String.fromString((String) first) : first, keys[i][1]);
      }
      Comparator<Object[]> byValue = strings
          ? Comparator.<Object[], String>comparing(k -> (String) k[0], KeyCodecTest::compareCodePoints).thenComparing(k -> (Long) k[1])
          : Comparator.<Object[], Integer>comparing(k -> (Integer) k[0]).thenComparing(k -> (Long) k[1]);
      int[] order = EncodedKeyOrder.of(encoded, count);
      for (int i = 1; i < count; i++) {
        Object[] previous = keys[order[i - 1]];
        Object[] next = keys[order[i]];
        assertTrue(byValue.compare(previous, next) <= 0, () -> Arrays.toString(previous) + " sorted before " + Arrays.toString(next));
      }
    }
  }

  @Test
  void distinctKeysEncodeDistinctlyAndEqualKeysIdentically() {
    KeyCodec codec = codec(Types.StringType.get(), Types.StringType.get(), Types.LongType.get());
    Set<List<Object>> keys = new HashSet<>();
    Set<ByteBuffer> encodings = new HashSet<>();
    String[] parts = {"", "\u0000", "\u0001", "a", "a\u0000", "\u0000a"};
    for (String first : parts) {
      for (String second : parts) {
        for (long number : new long[] {0, 1, 256}) {
          keys.add(List.of(first, second, number));
          encodings.add(ByteBuffer.wrap(encode(codec, UTF8String.fromString(first), UTF8String.fromString(second), number)));
          // The same key again encodes to the same bytes (nothing is added to the set).
          encodings.add(ByteBuffer.wrap(encode(codec, UTF8String.fromString(first), UTF8String.fromString(second), number)));
        }
      }
    }
    // E.g. ("a", "\0") and ("a\0", "") would collide if strings were only separated by a zero.
    assertEquals(keys.size(), encodings.size());
  }

  @Test
  void decodingGivesBackTheInternalValuesOfEveryKind() {
    KeyCodec codec = codec(Types.IntegerType.get(), Types.LongType.get(), Types.DateType.get(), Types.DecimalType.of(18, 3),
        Types.DecimalType.of(30, 5), Types.StringType.get(), Types.BooleanType.get(), Types.TimestampType.withZone());
    for (int i = 0; i < 200; i++) {
      BigInteger wide = new BigInteger(1 + RANDOM.nextInt(99), RANDOM);
      Object[] values = {
        RANDOM.nextInt(), RANDOM.nextLong(), RANDOM.nextInt(100_000) - 50_000,
        Decimal.apply(BigDecimal.valueOf(RANDOM.nextLong() % 1_000_000_000_000_000L, 3), 18, 3),
        Decimal.apply(new BigDecimal(RANDOM.nextBoolean() ? wide : wide.negate(), 5), 30, 5),
        UTF8String.fromString(i % 3 == 0 ? "\u0000x\u0000" : "k\u00e9y" + i), RANDOM.nextBoolean(), RANDOM.nextLong()};
      Object[] decoded = codec.internalValues(codec.encode(new GenericInternalRow(values)));
      assertArrayEquals(values, decoded, "key " + i);
      // And the decoded values encode to the same bytes again.
      assertArrayEquals(codec.encode(new GenericInternalRow(values)), codec.encode(new GenericInternalRow(decoded)));
    }
  }

  @Test
  void decodingRefusesBytesLeftOver() {
    KeyCodec codec = codec(Types.StringType.get());
    byte[] key = encode(codec, UTF8String.fromString("a"));
    byte[] longer = Arrays.copyOf(key, key.length + 1);
    assertThrows(IllegalArgumentException.class, () -> codec.internalValues(longer));
  }

  @Test
  void aBatchsExternalValuesEncodeAsTheFilesInternalValues() {
    LocalDate day = LocalDate.of(2024, 2, 29);
    LocalDateTime local = LocalDateTime.of(2023, 11, 14, 22, 13, 20, 123_456_000);
    Instant instant = local.toInstant(ZoneOffset.UTC);
    KeyCodec codec = codec(Types.IntegerType.get(), Types.DateType.get(), Types.DateType.get(), Types.TimestampType.withZone(),
        Types.TimestampType.withZone(), Types.TimestampType.withoutZone(), Types.DecimalType.of(9, 2),
        Types.DecimalType.of(20, 2), Types.StringType.get(), Types.BooleanType.get());
    byte[] internal = encode(codec, -7, (int) day.toEpochDay(), (int) day.toEpochDay(), micros(instant), micros(instant),
        micros(instant), Decimal.apply(new BigDecimal("-1.50"), 9, 2), Decimal.apply(new BigDecimal("12345678901234.56"), 20, 2),
        UTF8String.fromString("x\u0000y"), true);
    // The batch's rows start with a column that is not part of the key.
    org.apache.spark.sql.Row external = RowFactory.create("not a key", -7, java.sql.Date.valueOf(day), day,
        java.sql.Timestamp.from(instant), instant, local, new BigDecimal("-1.5"), new BigDecimal("12345678901234.56"), "x\u0000y", true);
    assertArrayEquals(internal, codec.encode(external, 1));
  }

  @Test
  void nullsAreFoundInKeyColumnsOnly() {
    KeyCodec codec = codec(Types.LongType.get(), Types.StringType.get());
    assertFalse(codec.anyNull(new GenericInternalRow(new Object[] {1L, UTF8String.fromString("a"), null})));
    assertTrue(codec.anyNull(new GenericInternalRow(new Object[] {null, UTF8String.fromString("a")})));
    assertTrue(codec.anyNull(new GenericInternalRow(new Object[] {1L, null})));
    // A batch row's key columns start at `first`: a NULL before them is not the key's.
    assertFalse(codec.anyNull(RowFactory.create(null, 1L, "a"), 1));
    assertTrue(codec.anyNull(RowFactory.create("x", 1L, null), 1));
  }

  @Test
  void oneIntegerLikeColumnIsTheLongFastPath() {
    for (Type type : List.of(Types.IntegerType.get(), Types.LongType.get(), Types.DateType.get(), Types.TimestampType.withZone())) {
      assertTrue(codec(type).singleLong(), type::toString);
    }
    assertFalse(codec(Types.StringType.get()).singleLong());
    assertFalse(codec(Types.DecimalType.of(5, 0)).singleLong());
    assertFalse(codec(Types.LongType.get(), Types.LongType.get()).singleLong());

    assertEquals(-3, codec(Types.IntegerType.get()).internalValues(-3L)[0]); // an Integer for INT and DATE
    assertEquals(-3L, codec(Types.LongType.get()).internalValues(-3L)[0]);
    assertEquals(-3L, codec(Types.IntegerType.get()).internalLong(new GenericInternalRow(new Object[] {-3}), 0));

    // The 8 bytes an entry stores for a long key are the key's encoding, and decode back.
    KeyCodec longs = codec(Types.LongType.get());
    for (long value : new long[] {Long.MIN_VALUE, -1, 0, 1, Long.MAX_VALUE, RANDOM.nextLong()}) {
      assertArrayEquals(encode(longs, value), KeyCodec.longBytes(value));
      assertEquals(value, KeyCodec.bytesLong(KeyCodec.longBytes(value)));
    }
    assertThrows(IllegalArgumentException.class, () -> KeyCodec.bytesLong(new byte[7]));
  }

  @Test
  void typesWithoutAnOrderPreservingEncodingAreRefused() {
    for (Type type : List.of(Types.FloatType.get(), Types.DoubleType.get(), Types.BinaryType.get(), Types.UUIDType.get(),
        Types.FixedType.ofLength(4), Types.TimeType.get())) {
      IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> codec(type), type::toString);
      assertTrue(refused.getMessage().contains(type.toString()), refused::getMessage);
    }
    assertThrows(IllegalArgumentException.class, () -> codec(Types.LongType.get()).externalLong("12"));
  }

  @Test
  void theDescriptionIdentifiesFieldIdsAndTypes() {
    // Part of an entry's name: another id or type must give other entries.
    String base = KeyCodec.of(List.of(Types.NestedField.required(1, "a", Types.LongType.get()))).description();
    assertEquals(base, KeyCodec.of(List.of(Types.NestedField.required(1, "renamed", Types.LongType.get()))).description());
    assertNotEquals(base, KeyCodec.of(List.of(Types.NestedField.required(2, "a", Types.LongType.get()))).description());
    assertNotEquals(base, KeyCodec.of(List.of(Types.NestedField.required(1, "a", Types.IntegerType.get()))).description());
    assertNotEquals(
        codec(Types.DecimalType.of(10, 2)).description(), codec(Types.DecimalType.of(10, 3)).description());
  }

  static long micros(Instant instant) {
    return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1000);
  }

  static int compareCodePoints(String a, String b) {
    return Arrays.compare(a.codePoints().toArray(), b.codePoints().toArray());
  }
}
