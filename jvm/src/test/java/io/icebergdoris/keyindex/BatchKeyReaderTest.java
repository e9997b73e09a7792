package io.icebergdoris.keyindex;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

/**
 * A batch's keys read on the executors: the bytes must be the ones a data file's rows encode to
 * (the index matches them byte for byte), the delete flags and sequence values must stay with
 * their keys through the chunk's sort and serialization, rows with a NULL key are left out, and a
 * key turns back into the values collecting the batch would have given.
 */
class BatchKeyReaderTest {

  private static final Random RANDOM = new Random(77);

  @Test
  void compositeKeysEncodeAsTheFilesRowsAndTravelWithTheirFlags() throws Exception {
    KeyCodec codec = KeyCodecTest.codec(Types.DateType.get(), Types.StringType.get(), Types.DecimalType.of(20, 2), Types.BooleanType.get());
    StructType batch = new StructType()
        .add("day", DataTypes.DateType).add("name", DataTypes.StringType).add("amount", DataTypes.createDecimalType(20, 2))
        .add("flag", DataTypes.BooleanType).add("__delete", DataTypes.BooleanType).add("seq", DataTypes.LongType);
    BatchKeyReader reader = BatchKeyReader.of(codec, batch, true);
    assertNotNull(reader);

    List<Object[]> expected = new ArrayList<>(); // {key bytes, delete, sequence or null}
    List<InternalRow> rows = new ArrayList<>();
    for (int i = 0; i < 3000; i++) {
      int day = 19_000 + RANDOM.nextInt(10);
      UTF8String name = UTF8String.fromString(RANDOM.nextInt(5) == 0 ? "" : "n\u0000" + RANDOM.nextInt(30));
      Decimal amount = Decimal.apply(BigDecimal.valueOf(RANDOM.nextLong() % 1_000_000_000_000L, 2), 20, 2);
      boolean flag = RANDOM.nextBoolean();
      Boolean delete = RANDOM.nextInt(10) == 0 ? null : RANDOM.nextBoolean();
      Long sequence = RANDOM.nextInt(6) == 0 ? null : RANDOM.nextLong();
      boolean nullKey = RANDOM.nextInt(20) == 0;
      rows.add(new GenericInternalRow(new Object[] {nullKey ? null : day, name, amount, flag, delete, sequence}));
      if (!nullKey) {
        byte[] key = codec.encode(new GenericInternalRow(new Object[] {day, name, amount, flag}));
        expected.add(new Object[] {key, Boolean.TRUE.equals(delete), sequence});
      }
    }
    BatchKeyReader.Chunk chunk = roundTrip(reader.read(rows.iterator()));

    // The reference: the file-side encodings, stably sorted.
    expected.sort((a, b) -> Arrays.compareUnsigned((byte[]) a[0], (byte[]) b[0]));
    assertEquals(expected.size(), chunk.count, "rows with a NULL key are left out");
    byte[][] keys = chunk.encodedKeys();
    for (int i = 0; i < expected.size(); i++) {
      Object[] want = expected.get(i);
      assertArrayEquals((byte[]) want[0], keys[i], "key " + i);
      assertEquals(want[1], chunk.deletes[i], "delete flag " + i);
      assertEquals(want[2] == null, chunk.nullSequences[i], "NULL sequence " + i);
      if (want[2] != null) {
        assertEquals(want[2], chunk.sequences[i], "sequence " + i);
      }
    }
  }

  @Test
  void integerLikeColumnsOfAnySparkWidthAreTheLongFastPath() {
    KeyCodec codec = KeyCodecTest.codec(Types.LongType.get());
    Object[][] cases = {
      {DataTypes.ByteType, (byte) -5, -5L}, {DataTypes.ShortType, (short) 300, 300L}, {DataTypes.IntegerType, -70_000, -70_000L},
      {DataTypes.LongType, Long.MIN_VALUE, Long.MIN_VALUE}, {DataTypes.TimestampType, 1_700_000_000_123_456L, 1_700_000_000_123_456L}
    };
    for (Object[] c : cases) {
      StructType batch = new StructType().add("k", (org.apache.spark.sql.types.DataType) c[0]).add("__delete", DataTypes.BooleanType);
      BatchKeyReader reader = BatchKeyReader.of(codec, batch, false);
      BatchKeyReader.Chunk chunk = reader.read(List.<InternalRow>of(new GenericInternalRow(new Object[] {c[1], true})).iterator());
      assertArrayEquals(new long[] {(Long) c[2]}, chunk.longs, c[0].toString());
      assertNull(chunk.sequences);
      assertTrue(chunk.deletes[0]);
    }
  }

  @Test
  void columnsOfOtherTypesAreLeftToCollectingTheRows() {
    KeyCodec codec = KeyCodecTest.codec(Types.LongType.get());
    assertNull(BatchKeyReader.of(codec, new StructType().add("k", DataTypes.StringType).add("d", DataTypes.BooleanType), false));
    assertNull(BatchKeyReader.of(KeyCodecTest.codec(Types.StringType.get()),
        new StructType().add("k", DataTypes.LongType).add("d", DataTypes.BooleanType), false));
    assertNull(BatchKeyReader.of(codec,
        new StructType().add("k", DataTypes.LongType).add("d", DataTypes.BooleanType).add("s", DataTypes.StringType), true));
  }

  @Test
  void aKeyTurnsBackIntoTheValuesCollectingTheBatchGives() {
    // (DATE and TIMESTAMP keys turn into java.sql values through Spark internals that need JDK
    // modules opened as spark-submit opens them, which this test JVM does not: DATE keys are read
    // from an INT column here, and timestamps are TIMESTAMP_NTZ.)
    KeyCodec codec = KeyCodecTest.codec(Types.DateType.get(), Types.TimestampType.withoutZone(), Types.DecimalType.of(9, 2),
        Types.DecimalType.of(25, 3), Types.StringType.get(), Types.BooleanType.get(), Types.IntegerType.get());
    StructType batch = new StructType().add("d", DataTypes.IntegerType).add("t", DataTypes.TimestampNTZType)
        .add("a", DataTypes.createDecimalType(9, 2)).add("w", DataTypes.createDecimalType(25, 3)).add("s", DataTypes.StringType)
        .add("b", DataTypes.BooleanType).add("i", DataTypes.ShortType).add("__delete", DataTypes.BooleanType);
    BatchKeyReader reader = BatchKeyReader.of(codec, batch, false);
    LocalDateTime at = LocalDateTime.of(2024, 2, 29, 23, 59, 59, 999_999_000);
    InternalRow row = new GenericInternalRow(new Object[] {
      19_782, KeyCodecTest.micros(at.toInstant(java.time.ZoneOffset.UTC)), Decimal.apply(new BigDecimal("-12.50"), 9, 2),
      Decimal.apply(new BigDecimal("-1234567890123456789012.345"), 25, 3), UTF8String.fromString("a\u0000b"), true, (short) -7, false});
    byte[] key = reader.read(List.of(row).iterator()).encodedKeys()[0];

    Row values = reader.keyRow(key);
    assertEquals(19_782, values.get(0));
    assertEquals(at, values.get(1));
    assertEquals(new BigDecimal("-12.50"), values.get(2));
    assertEquals(new BigDecimal("-1234567890123456789012.345"), values.get(3));
    assertEquals("a\u0000b", values.get(4));
    assertEquals(true, values.get(5));
    assertEquals((short) -7, values.get(6));
    // And those values encode to the key again, as a batch of collected rows would.
    assertArrayEquals(key, codec.encode(values, 0));

    BatchKeyReader longs = BatchKeyReader.of(KeyCodecTest.codec(Types.TimestampType.withoutZone()),
        new StructType().add("t", DataTypes.TimestampNTZType).add("__delete", DataTypes.BooleanType), false);
    assertEquals(at, longs.keyRow(KeyCodecTest.micros(at.toInstant(java.time.ZoneOffset.UTC))).get(0));
  }

  private static BatchKeyReader.Chunk roundTrip(BatchKeyReader.Chunk chunk) throws IOException, ClassNotFoundException {
    // Chunks travel from the executors to the driver serialized, their keys packed.
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(chunk);
    }
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      BatchKeyReader.Chunk read = (BatchKeyReader.Chunk) in.readObject();
      assertTrue(read.encodedKeys() != null);
      return read;
    }
  }
}
