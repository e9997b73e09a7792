package io.icebergdoris.keyindex;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.IntStream;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A data file's index entry: its keys in key order, each with the position of its row and that
 * row's sequence value; built from a real data file it must point at the rows holding the keys.
 * Its galloping search must agree with a plain scan.
 */
class KeyIndexEntryTest {

  private static final Random RANDOM = new Random(4242);

  @TempDir
  File folder;

  /** Batch keys as a probe sees them (sorted), long or encoded. */
  static BatchKeys batch(long[] longs, byte[][] bytes) {
    int count = longs != null ? longs.length : bytes.length;
    return new BatchKeys(longs, bytes, new int[count], null, null, null, null, null);
  }

  private static byte[] randomKey() {
    byte[] key = new byte[RANDOM.nextInt(4)];
    for (int i = 0; i < key.length; i++) {
      key[i] = (byte) (RANDOM.nextInt(3) * 0x7f);
    }
    return key;
  }

  @Test
  void longKeysAreSortedWithTheirPositionsAndSequences() {
    long[] keys = {40, -3, 7, 40, -3, 0};
    long[] sequences = {1, 2, 3, 4, 5, 6};
    boolean[] nulls = {false, false, true, false, false, false};
    KeyIndexEntry entry = KeyIndexEntry.sorted(keys.clone(), null, sequences, nulls);

    assertArrayEquals(new long[] {-3, -3, 0, 7, 40, 40}, entry.longs);
    for (int i = 0; i < entry.size(); i++) {
      int row = entry.position(i);
      assertEquals(keys[row], entry.longs[i], "the key of row " + row);
      assertEquals(sequences[row], entry.sequences[i]);
      assertEquals(nulls[row], entry.nullSequences[i]);
      assertArrayEquals(KeyCodec.longBytes(keys[row]), entry.keyBytes(i));
    }
    assertArrayEquals(IntStream.range(0, 6).toArray(), Arrays.stream(entry.positionArray()).sorted().toArray(), "each row once");
  }

  @Test
  void encodedKeysAreSortedStablyIntoOneArray() {
    byte[][] keys = {{2}, {1, 0}, {}, {1}, {2}, {(byte) 0x80}, {1, 0}};
    KeyIndexEntry entry = KeyIndexEntry.sorted(null, keys, null, null);

    // Unsigned order, a prefix first, equal keys in row order.
    assertArrayEquals(new int[] {2, 3, 1, 6, 0, 4, 5}, entry.positionArray());
    for (int i = 0; i < entry.size(); i++) {
      assertArrayEquals(keys[entry.position(i)], entry.keyBytes(i));
      assertEquals(keys[entry.position(i)].length, entry.keyLength(i));
    }
    assertEquals(8, entry.keyBytesTotal(), "the keys' bytes back to back");
    assertFalse(entry.hasSequences());
  }

  @Test
  void keysAlreadyInOrderKeepTheirPositions() {
    // A load's own files are written in key order: their entries' positions are 0, 1, 2, ...
    KeyIndexEntry longs = KeyIndexEntry.sorted(new long[] {1, 1, 2, 5}, null, null, null);
    KeyIndexEntry encoded = KeyIndexEntry.sorted(null, new byte[][] {{}, {0}, {0}, {1, 2}}, null, null);
    assertTrue(KeyIndexFiles.positionsInOrder(longs.positionArray()));
    assertTrue(KeyIndexFiles.positionsInOrder(encoded.positionArray()));
  }

  @Test
  void anEntryHoldsEitherLongOrEncodedKeys() {
    assertThrows(IllegalArgumentException.class, () -> new KeyIndexEntry(new long[1], new byte[1], new int[2], new int[1], null, null));
    assertThrows(IllegalArgumentException.class, () -> new KeyIndexEntry(null, null, null, new int[1], null, null));
    assertThrows(IllegalArgumentException.class, () -> new KeyIndexEntry(null, new byte[1], null, new int[1], null, null));
    assertThrows(IllegalArgumentException.class, () -> new KeyIndexEntry(null, new byte[1], new int[1], new int[1], null, null));
  }

  @Test
  void theGallopingLowerBoundAgreesWithAScan() {
    for (int round = 0; round < 200; round++) {
      boolean encoded = round % 2 == 1;
      int size = RANDOM.nextInt(120);
      KeyIndexEntry entry;
      BatchKeys batch;
      if (encoded) {
        byte[][] keys = new byte[size][];
        for (int i = 0; i < size; i++) {
          keys[i] = randomKey();
        }
        entry = KeyIndexEntry.sorted(null, keys, null, null);
        byte[][] probes = new byte[30][];
        for (int i = 0; i < probes.length; i++) {
          probes[i] = randomKey();
        }
        Arrays.sort(probes, Arrays::compareUnsigned);
        batch = batch(null, probes);
      } else {
        long[] keys = new long[size];
        for (int i = 0; i < size; i++) {
          keys[i] = RANDOM.nextInt(60);
        }
        entry = KeyIndexEntry.sorted(keys, null, null, null);
        long[] probes = RANDOM.longs(30, -5, 65).sorted().toArray();
        batch = batch(probes, null);
      }
      for (int b = 0; b < batch.count(); b++) {
        int from = size == 0 ? 0 : RANDOM.nextInt(size + 1);
        int expected = from;
        while (expected < size && entry.compare(expected, batch, b) < 0) {
          expected++;
        }
        assertEquals(expected, entry.lowerBound(from, batch, b), "round " + round + ", batch key " + b + " from " + from);
      }
    }
  }

  @Test
  void comparingEntriesComparesTheirKeys() {
    KeyIndexEntry a = KeyIndexEntry.sorted(null, new byte[][] {{1}, {1, 0}}, null, null);
    KeyIndexEntry b = KeyIndexEntry.sorted(null, new byte[][] {{1, 0}, {(byte) 0x90}}, null, null);
    assertTrue(a.compare(0, b, 0) < 0);
    assertEquals(0, a.compare(1, b, 0));
    assertTrue(a.compare(1, b, 1) < 0, "0x90 is above 0x01 unsigned");
    assertEquals(0, a.compareKey(1, new byte[] {1, 0}));

    KeyIndexEntry longs = KeyIndexEntry.sorted(new long[] {-1, 5}, null, null, null);
    assertTrue(longs.compare(0, longs, 1) < 0, "-1 before 5: signed, not by bytes");
  }

  @Test
  void aCachedEntryWeighsItsBytesInTwelveByteUnits() {
    long[] inOrder = LongStreamOf(1200);
    assertEquals(800, KeyIndexEntry.sorted(inOrder, null, null, null).weight(), "8 bytes a key, positions implied");
    long[] reversed = new long[1200];
    for (int i = 0; i < reversed.length; i++) {
      reversed[i] = reversed.length - i;
    }
    assertEquals(1200, KeyIndexEntry.sorted(reversed, null, null, null).weight(), "8 bytes and a 4-byte position a key");

    // Sorted neighbours share their block's prefix: far less than the keys' 18 bytes and an offset each.
    byte[][] orders = new byte[1600][];
    for (int i = 0; i < orders.length; i++) {
      orders[i] = String.format("order-%012d", i).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }
    long whole = 1600L * (18 + 4) / 12;
    long weight = KeyIndexEntry.sorted(null, orders, null, null).weight();
    assertTrue(weight * 2 < whole, weight + " units against " + whole + " for whole keys");

    byte[][] unrelated = new byte[3][];
    for (int i = 0; i < unrelated.length; i++) {
      unrelated[i] = new byte[100];
      unrelated[i][0] = (byte) i; // nothing shared
    }
    assertTrue(KeyIndexEntry.sorted(null, unrelated, null, null).weight() >= 300 / 12);
  }

  private static long[] LongStreamOf(int count) {
    return java.util.stream.LongStream.range(0, count).toArray();
  }

  // ---- built from a data file ----

  private static final Schema TABLE = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "day", Types.DateType.get()),
      Types.NestedField.optional(3, "name", Types.StringType.get()),
      Types.NestedField.optional(4, "seq", Types.LongType.get()));

  private File dataFile(List<InternalRow> rows) throws IOException {
    File file = new File(folder, "data-" + RANDOM.nextInt(1_000_000) + ".parquet");
    ParquetDataFiles.write(file, TABLE, rows, Map.of());
    return file;
  }

  private static List<InternalRow> randomRows(int count) {
    List<InternalRow> rows = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      rows.add(new GenericInternalRow(new Object[] {
        (long) RANDOM.nextInt(1000) - 500, 19_000 + RANDOM.nextInt(5), UTF8String.fromString("n" + RANDOM.nextInt(50)),
        RANDOM.nextInt(10) == 0 ? null : RANDOM.nextLong()}));
    }
    return rows;
  }

  @Test
  void anEntryBuiltFromADataFilePointsAtTheRowsHoldingItsKeys() throws IOException {
    List<InternalRow> rows = randomRows(3000);
    File file = dataFile(rows);
    List<Types.NestedField> keys = List.of(TABLE.findField("day"), TABLE.findField("name"), TABLE.findField("id"));
    KeyCodec codec = KeyCodec.of(keys);
    KeyIndexEntry entry = KeyIndexEntry.build(new LocalFileIO(), file.getPath(), codec, keys, TABLE.findField("seq"), null);

    assertNotNull(entry);
    assertEquals(rows.size(), entry.size());
    for (int i = 0; i < entry.size(); i++) {
      InternalRow row = rows.get(entry.position(i));
      byte[] expected = codec.encode(new GenericInternalRow(new Object[] {row.getInt(1), row.getUTF8String(2), row.getLong(0)}));
      assertArrayEquals(expected, entry.keyBytes(i), "key " + i);
      assertEquals(row.isNullAt(3), entry.nullSequences[i]);
      if (!row.isNullAt(3)) {
        assertEquals(row.getLong(3), entry.sequences[i]);
      }
      if (i > 0) {
        assertTrue(entry.compare(i - 1, entry, i) <= 0, "keys in order at " + i);
      }
    }
    assertArrayEquals(IntStream.range(0, rows.size()).toArray(), Arrays.stream(entry.positionArray()).sorted().toArray());
  }

  @Test
  void oneIntegerKeyColumnIsIndexedAsLongs() throws IOException {
    List<InternalRow> rows = randomRows(500);
    File file = dataFile(rows);
    List<Types.NestedField> keys = List.of(TABLE.findField("id"));
    KeyIndexEntry entry = KeyIndexEntry.build(new LocalFileIO(), file.getPath(), KeyCodec.of(keys), keys, null, null);

    assertNotNull(entry.longs);
    assertFalse(entry.encoded());
    assertFalse(entry.hasSequences());
    for (int i = 0; i < entry.size(); i++) {
      assertEquals(rows.get(entry.position(i)).getLong(0), entry.longs[i]);
    }
    long[] sorted = rows.stream().mapToLong(r -> r.getLong(0)).sorted().toArray();
    assertArrayEquals(sorted, entry.longs);
  }

  @Test
  void aFileWithANullKeyHasNoEntry() throws IOException {
    List<InternalRow> rows = randomRows(100);
    rows.set(57, new GenericInternalRow(new Object[] {1L, null, UTF8String.fromString("x"), 1L}));
    File file = dataFile(rows);
    List<Types.NestedField> keys = List.of(TABLE.findField("day"), TABLE.findField("id"));
    assertNull(KeyIndexEntry.build(new LocalFileIO(), file.getPath(), KeyCodec.of(keys), keys, null, null));
  }
}
