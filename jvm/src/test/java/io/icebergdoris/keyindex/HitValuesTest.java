package io.icebergdoris.keyindex;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import org.apache.iceberg.Files;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.spark.SparkSchemaUtil;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rows read by position straight from a data file's pages must be the rows Iceberg's own reader
 * reads at those positions: every physical type Iceberg writes, NULLs, dictionary and PLAIN pages,
 * v1 and v2 pages, many small pages and row groups, ZSTD (decompressed by {@link DirectZstd}),
 * snappy and uncompressed files. A file it does not decode is left to Iceberg's reader (null).
 */
class HitValuesTest {

  private static final Random RANDOM = new Random(5);

  private static final Schema TABLE = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "small", Types.IntegerType.get()),
      Types.NestedField.optional(3, "name", Types.StringType.get()),
      Types.NestedField.optional(4, "score", Types.DoubleType.get()),
      Types.NestedField.optional(5, "ratio", Types.FloatType.get()),
      Types.NestedField.optional(6, "day", Types.DateType.get()),
      Types.NestedField.optional(7, "at", Types.TimestampType.withZone()),
      Types.NestedField.optional(8, "price", Types.DecimalType.of(9, 2)),
      Types.NestedField.optional(9, "total", Types.DecimalType.of(18, 4)),
      Types.NestedField.optional(10, "huge", Types.DecimalType.of(30, 6)),
      Types.NestedField.optional(11, "payload", Types.BinaryType.get()),
      Types.NestedField.optional(12, "flag", Types.BooleanType.get()));

  @TempDir
  File folder;

  private static List<InternalRow> rows(int count) {
    return rows(count, 0);
  }

  /** Rows of random values; with {@code pool} > 0, each row's values one of {@code pool} sets (dictionary-friendly). */
  private static List<InternalRow> rows(int count, int pool) {
    List<InternalRow> rows = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      Random r = new Random(pool == 0 ? RANDOM.nextLong() : RANDOM.nextInt(pool));
      Object[] values = {
        pool == 0 ? (long) i * 7 - 1000 : (long) r.nextInt(),
        r.nextInt(),
        UTF8String.fromString(r.nextInt(3) == 0 ? "name-" + r.nextInt() : "common-" + r.nextInt(20)),
        r.nextGaussian(),
        r.nextFloat(),
        r.nextInt(40_000) - 10_000,
        r.nextLong() >> 10,
        Decimal.apply(BigDecimal.valueOf(r.nextInt(2_000_000_000) - 1_000_000_000, 2), 9, 2),
        Decimal.apply(BigDecimal.valueOf(r.nextLong() % 100_000_000_000_000_000L, 4), 18, 4),
        Decimal.apply(new BigDecimal(new java.math.BigInteger(95, r).negate(), 6), 30, 6),
        new byte[] {(byte) i, (byte) (i >> 8), 0, (byte) r.nextInt()},
        r.nextBoolean()
      };
      if (pool > 0) {
        values[10] = new byte[] {(byte) r.nextInt(), 0, 1};
      }
      for (int c = 1; c < values.length; c++) {
        if (RANDOM.nextInt(7) == 0) {
          values[c] = null; // NULLs scattered over every optional column
        }
      }
      if (i % 500 < 40) {
        values[3] = null; // and a stretch of them, a page mostly NULL
      }
      rows.add(new GenericInternalRow(values));
    }
    return rows;
  }

  /** Sorted distinct positions: the first and last rows, a run, and a random sprinkle. */
  private static long[] positions(int count) {
    TreeSet<Long> positions = new TreeSet<>(List.of(0L, (long) count - 1));
    for (long p = count / 3; p < count / 3 + 40; p++) {
      positions.add(p);
    }
    for (int i = 0; i < count / 20; i++) {
      positions.add((long) RANDOM.nextInt(count));
    }
    return positions.stream().mapToLong(Long::longValue).toArray();
  }

  private File write(String name, List<InternalRow> rows, Map<String, String> properties) throws IOException {
    File file = new File(folder, name);
    ParquetDataFiles.write(file, TABLE, rows, properties);
    return file;
  }

  private static void assertSameValues(Schema projection, InternalRow expected, InternalRow actual, int actualOffset, String what) {
    List<StructField> fields = List.of(SparkSchemaUtil.convert(projection).fields());
    for (int c = 0; c < fields.size(); c++) {
      DataType type = fields.get(c).dataType();
      String column = what + ", column " + fields.get(c).name();
      assertEquals(expected.isNullAt(c), actual.isNullAt(actualOffset + c), column + " NULL");
      if (!expected.isNullAt(c)) {
        Object want = expected.get(c, type);
        Object got = actual.get(actualOffset + c, type);
        if (want instanceof byte[]) {
          assertArrayEquals((byte[]) want, (byte[]) got, column);
        } else {
          assertEquals(want, got, column);
        }
      }
    }
  }

  private static void assertReadsAsIceberg(File file, Schema projection, long[] positions) throws IOException {
    List<InternalRow> all = ParquetDataFiles.readAll(file, projection);
    List<InternalRow> hits = HitValues.read(Files.localInput(file), projection, "s3://b/t/f.parquet", positions, null);
    assertNotNull(hits, "the file is one HitValues decodes");
    assertEquals(positions.length, hits.size());
    int columns = projection.columns().size();
    for (int i = 0; i < positions.length; i++) {
      InternalRow hit = hits.get(i);
      assertSameValues(projection, all.get((int) positions[i]), hit, 0, file.getName() + " row " + positions[i]);
      assertEquals("s3://b/t/f.parquet", hit.getUTF8String(columns).toString(), "the file");
      assertEquals(positions[i], hit.getLong(columns + 1), "the position");
    }
  }

  private static Map<String, String> properties(String codec, String pageVersion, boolean dictionary) {
    return Map.of(
        TableProperties.PARQUET_COMPRESSION, codec,
        TableProperties.PARQUET_PAGE_VERSION, pageVersion,
        TableProperties.PARQUET_PAGE_ROW_LIMIT, "100", // many small pages
        TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES, "32768", // several row groups
        TableProperties.PARQUET_ROW_GROUP_CHECK_MIN_RECORD_COUNT, "100",
        TableProperties.PARQUET_ROW_GROUP_CHECK_MAX_RECORD_COUNT, "500",
        // A dictionary too small for any column: every page PLAIN.
        TableProperties.PARQUET_DICT_SIZE_BYTES, dictionary ? "1048576" : "1");
  }

  @Test
  void dictionaryPagesReadAsIcebergReadsThem() throws IOException {
    List<InternalRow> rows = rows(3000);
    File file = write("dictionary.parquet", rows, properties("zstd", "v1", true));
    assertReadsAsIceberg(file, TABLE, positions(rows.size()));
  }

  @Test
  void plainPagesReadAsIcebergReadsThem() throws IOException {
    List<InternalRow> rows = rows(3000);
    for (String codec : new String[] {"snappy", "uncompressed", "zstd"}) {
      File file = write("plain-" + codec + ".parquet", rows, properties(codec, "v1", false));
      assertReadsAsIceberg(file, TABLE, positions(rows.size()));
    }
  }

  @Test
  void v2DictionaryPagesReadAsIcebergReadsThem() throws IOException {
    // v2 pages write booleans RLE-encoded, which HitValues leaves to Iceberg: without them here.
    // And few distinct values: v2 falls back from a dictionary that does not pay to DELTA encodings.
    Schema noBooleans = new Schema(TABLE.columns().subList(0, 11));
    List<InternalRow> rows = new ArrayList<>();
    for (InternalRow row : rows(3000, 50)) {
      Object[] values = new Object[11];
      for (int c = 0; c < 11; c++) {
        values[c] = row.isNullAt(c) ? null : row.get(c, SparkSchemaUtil.convert(TABLE).fields()[c].dataType());
      }
      rows.add(new GenericInternalRow(values));
    }
    File file = new File(folder, "v2.parquet");
    ParquetDataFiles.write(file, noBooleans, rows, properties("zstd", "v2", true));
    assertReadsAsIceberg(file, noBooleans, positions(rows.size()));
  }

  @Test
  void aProjectionOfSomeColumnsInAnotherOrderWithKnownKeysFirst() throws IOException {
    List<InternalRow> rows = rows(1500);
    File file = write("f.parquet", rows, properties("zstd", "v1", true));
    Schema projection = new Schema(TABLE.findField("flag"), TABLE.findField("name"), TABLE.findField("huge"));
    long[] positions = {3, 4, 5, 700, 1499};
    Object[][] leading = new Object[positions.length][];
    for (int i = 0; i < positions.length; i++) {
      leading[i] = new Object[] {rows.get((int) positions[i]).getLong(0)};
    }
    List<InternalRow> hits = HitValues.read(Files.localInput(file), projection, "f", positions, leading);
    List<InternalRow> all = ParquetDataFiles.readAll(file, projection);
    for (int i = 0; i < positions.length; i++) {
      assertEquals(leading[i][0], hits.get(i).getLong(0), "the known key leads the row");
      assertSameValues(projection, all.get((int) positions[i]), hits.get(i), 1, "row " + positions[i]);
      assertEquals(positions[i], hits.get(i).getLong(5));
    }
  }

  @Test
  void promotedColumnsReadAsTheTablesTypeNow() throws IOException {
    // int -> long, float -> double and a wider decimal precision: Iceberg's allowed promotions.
    List<InternalRow> rows = rows(800);
    File file = write("f.parquet", rows, properties("snappy", "v1", true));
    Schema promoted = new Schema(
        Types.NestedField.optional(2, "small", Types.LongType.get()),
        Types.NestedField.optional(5, "ratio", Types.DoubleType.get()),
        Types.NestedField.optional(8, "price", Types.DecimalType.of(12, 2)));
    long[] positions = positions(rows.size());
    List<InternalRow> hits = HitValues.read(Files.localInput(file), promoted, "f", positions, null);
    assertNotNull(hits);
    for (int i = 0; i < positions.length; i++) {
      InternalRow row = rows.get((int) positions[i]);
      InternalRow hit = hits.get(i);
      assertEquals(row.isNullAt(1) ? null : (Object) (long) row.getInt(1), hit.isNullAt(0) ? null : hit.getLong(0));
      assertEquals(row.isNullAt(4) ? null : (Object) (double) row.getFloat(4), hit.isNullAt(1) ? null : hit.getDouble(1));
      assertEquals(row.isNullAt(7) ? null : row.getDecimal(7, 9, 2).toJavaBigDecimal(),
          hit.isNullAt(2) ? null : hit.getDecimal(2, 12, 2).toJavaBigDecimal());
    }
  }

  @Test
  void filesItDoesNotDecodeAreLeftToIcebergsReader() throws IOException {
    List<InternalRow> rows = rows(300);
    // v2 pages without a dictionary: DELTA encodings.
    File delta = write("delta.parquet", rows, properties("zstd", "v2", false));
    assertNull(HitValues.read(Files.localInput(delta), TABLE, "f", new long[] {1}, null));
    // A column the file does not hold (added to the table since).
    File file = write("f.parquet", rows, properties("zstd", "v1", true));
    Schema added = new Schema(TABLE.findField("id"), Types.NestedField.optional(99, "added", Types.StringType.get()));
    assertNull(HitValues.read(Files.localInput(file), added, "f", new long[] {1}, null));
    // A type change Iceberg does not allow (long read as int).
    Schema narrowed = new Schema(Types.NestedField.required(1, "id", Types.IntegerType.get()));
    assertNull(HitValues.read(Files.localInput(file), narrowed, "f", new long[] {1}, null));
  }

  @Test
  void aPositionPastTheFilesRowsIsAnError() throws IOException {
    File file = write("f.parquet", rows(300), properties("zstd", "v1", true));
    IllegalStateException past = assertThrows(IllegalStateException.class,
        () -> HitValues.read(Files.localInput(file), TABLE, "f", new long[] {5, 300}, null));
    assertTrue(past.getMessage().contains("holds 1 of the 2 rows"), past::getMessage);
  }
}
