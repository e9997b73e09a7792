package io.icebergdoris.keyindex;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.iceberg.Schema;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.shaded.org.apache.parquet.format.PageHeader;
import org.apache.iceberg.shaded.org.apache.parquet.format.Util;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.iceberg.spark.SparkSchemaUtil;
import org.apache.iceberg.spark.data.SparkParquetWriters;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Entry files: an entry written by {@link KeyIndexFiles#write} must read back as the same entry
 * (long or encoded keys, with or without sequence values and NULLs among them, positions in order
 * or not, several pages); an entry that is not exactly what was written (a corrupted byte, rows
 * rewritten under the old footer, a false mark, unsorted keys, another writer's pages, another row
 * count) must be refused with its reason, never read as a different entry.
 */
class KeyIndexFilesTest {

  private static final Random RANDOM = new Random(2025);
  private static final KeyCodec LONG_KEY = KeyCodec.of(List.of(Types.NestedField.required(1, "id", Types.LongType.get())));
  private static final KeyCodec STRING_KEY = KeyCodec.of(List.of(Types.NestedField.required(1, "name", Types.StringType.get())));

  @TempDir
  File folder;

  private final LocalFileIO io = new LocalFileIO();

  private String path(String name) {
    return new File(folder, name).getPath();
  }

  // ---- entries ----

  /** Sorted long keys (repeats included), with sequence values when asked (NULL ones in the first {@code nullRows} rows). */
  private static KeyIndexEntry longEntry(int count, boolean sequences, int nullRows, boolean shuffled) {
    long[] keys = new long[count];
    long key = RANDOM.nextLong() >> 8;
    for (int i = 0; i < count; i++) {
      key += RANDOM.nextInt(8) == 0 ? RANDOM.nextInt(1 << 20) : RANDOM.nextInt(2);
      keys[i] = key;
    }
    return withRows(keys, null, count, sequences, nullRows, shuffled);
  }

  /** Sorted encoded string keys with long shared prefixes, as DELTA_BYTE_ARRAY pages share them. */
  private static KeyIndexEntry encodedEntry(int count, boolean sequences, int nullRows, boolean shuffled) {
    byte[][] keys = new byte[count][];
    for (int i = 0; i < count; i++) {
      KeyBytes out = new KeyBytes(32);
      String text = "customer/" + (RANDOM.nextInt(4) == 0 ? "" : "region-" + RANDOM.nextInt(30) + "/") + RANDOM.nextInt(100_000)
          + (RANDOM.nextInt(50) == 0 ? "\u0000tail" : "");
      KeyCodec.writeString(out, text.getBytes(StandardCharsets.UTF_8));
      keys[i] = out.toByteArray();
    }
    Arrays.sort(keys, Arrays::compareUnsigned);
    return withRows(null, keys, count, sequences, nullRows, shuffled);
  }

  private static KeyIndexEntry withRows(long[] longs, byte[][] bytes, int count, boolean sequences, int nullRows, boolean shuffled) {
    int[] positions = new int[count];
    for (int i = 0; i < count; i++) {
      positions[i] = i;
    }
    if (shuffled) { // a file not written in key order: its rows are a permutation
      for (int i = count - 1; i > 0; i--) {
        int j = RANDOM.nextInt(i + 1);
        int swap = positions[i];
        positions[i] = positions[j];
        positions[j] = swap;
      }
    }
    long[] values = sequences ? new long[count] : null;
    boolean[] nulls = sequences ? new boolean[count] : null;
    for (int i = 0; sequences && i < count; i++) {
      nulls[i] = i < nullRows && RANDOM.nextInt(3) == 0;
      values[i] = nulls[i] ? 0 : RANDOM.nextInt(10) == 0 ? RANDOM.nextLong() : 1_700_000_000_000L + i;
    }
    if (longs != null) {
      return new KeyIndexEntry(longs, null, null, positions, values, nulls);
    }
    int total = 0;
    for (byte[] key : bytes) {
      total += key.length;
    }
    byte[] data = new byte[total];
    int[] offsets = new int[count + 1];
    for (int i = 0; i < count; i++) {
      System.arraycopy(bytes[i], 0, data, offsets[i], bytes[i].length);
      offsets[i + 1] = offsets[i] + bytes[i].length;
    }
    return new KeyIndexEntry(null, data, offsets, positions, values, nulls);
  }

  static void assertSameEntry(KeyIndexEntry expected, KeyIndexEntry actual) {
    assertEquals(expected.size(), actual.size(), "rows");
    assertArrayEquals(expected.longs, actual.longs, "long keys");
    for (int i = 0; expected.longs == null && i < expected.size(); i++) {
      assertArrayEquals(expected.keyBytes(i), actual.keyBytes(i), "key " + i);
    }
    assertArrayEquals(expected.positionArray(), actual.positionArray(), "positions");
    assertEquals(expected.hasSequences(), actual.hasSequences());
    if (expected.hasSequences()) {
      assertArrayEquals(expected.nullSequences, actual.nullSequences, "NULL sequence values");
      for (int i = 0; i < expected.size(); i++) {
        if (!expected.nullSequences[i]) {
          assertEquals(expected.sequences[i], actual.sequences[i], "sequence value " + i);
        }
      }
    }
  }

  private KeyIndexEntry writeAndRead(String name, KeyIndexEntry entry, KeyCodec codec) throws IOException {
    String path = path(name);
    KeyIndexFiles.write(io, path, entry, "s3://bucket/table/data/" + name);
    return KeyIndexFiles.read(io, path, codec, entry.hasSequences(), entry.size());
  }

  // ---- entries read back as written ----

  @Test
  void longKeyEntriesReadBackAsWritten() throws IOException {
    // (Not 0 rows: Iceberg's Parquet writer leaves no file when no row was added.)
    for (boolean sequences : new boolean[] {false, true}) {
      for (boolean shuffled : new boolean[] {false, true}) {
        for (int count : new int[] {1, 2, 1000}) {
          KeyIndexEntry entry = longEntry(count, sequences, count / 2, shuffled);
          assertSameEntry(entry, writeAndRead("long-" + sequences + shuffled + count + ".parquet", entry, LONG_KEY));
        }
      }
    }
  }

  @Test
  void encodedKeyEntriesReadBackAsWritten() throws IOException {
    for (boolean sequences : new boolean[] {false, true}) {
      for (boolean shuffled : new boolean[] {false, true}) {
        for (int count : new int[] {1, 2, 1000}) {
          KeyIndexEntry entry = encodedEntry(count, sequences, count / 2, shuffled);
          assertSameEntry(entry, writeAndRead("encoded-" + sequences + shuffled + count + ".parquet", entry, STRING_KEY));
        }
      }
    }
  }

  @Test
  void entriesOfSeveralPagesReadBackAsWritten() throws IOException {
    // Pages hold 20,000 rows: three pages per column, NULL sequence values in the first only (the
    // other pages take the direct decoder), and keys compared across page boundaries.
    KeyIndexEntry longs = longEntry(45_000, true, 20_000, true);
    assertSameEntry(longs, writeAndRead("long-pages.parquet", longs, LONG_KEY));
    KeyIndexEntry encoded = encodedEntry(45_000, true, 20_000, false);
    assertSameEntry(encoded, writeAndRead("encoded-pages.parquet", encoded, STRING_KEY));
  }

  @Test
  void aKeyLongerThanTheChecksumsBlockReadsBack() throws IOException {
    byte[] huge = new byte[100_000];
    Arrays.fill(huge, (byte) 'x');
    KeyBytes out = new KeyBytes(16);
    KeyCodec.writeString(out, huge);
    KeyIndexEntry entry = KeyIndexEntry.sorted(null, new byte[][] {{0, 0}, out.toByteArray(), {(byte) 0xff, 0, 0}}, null, null);
    assertSameEntry(entry, writeAndRead("huge-key.parquet", entry, STRING_KEY));
  }

  @Test
  void theFooterNamesTheDataFileAndMarksPositionsInOrder() throws IOException {
    KeyIndexFiles.write(io, path("in-order.parquet"), longEntry(50, false, 0, false), "s3://b/t/data/a.parquet");
    KeyIndexFiles.write(io, path("shuffled.parquet"), longEntry(50, false, 0, true), "s3://b/t/data/b.parquet");
    Map<String, String> inOrder = footer(path("in-order.parquet"));
    Map<String, String> shuffled = footer(path("shuffled.parquet"));
    assertEquals("s3://b/t/data/a.parquet", inOrder.get(KeyIndexFiles.DATA_FILE));
    assertEquals(KeyIndexFiles.IN_ORDER, inOrder.get(KeyIndexFiles.POSITIONS));
    assertNull(shuffled.get(KeyIndexFiles.POSITIONS));
    assertTrue(inOrder.containsKey(KeyIndexFiles.CHECKSUM) && inOrder.containsKey(KeyIndexFiles.COLUMN_CHECKSUM));
  }

  // ---- entries refused, with their reason ----

  private Map<String, String> footer(String path) throws IOException {
    try (ParquetFileReader reader = ParquetFileReader.open(new KeyIndexFiles.ParquetInput(io.newInputFile(path)))) {
      return new HashMap<>(reader.getFooter().getFileMetaData().getKeyValueMetaData());
    }
  }

  /** Writes the rows of {@code entry} under {@code footer}, as {@link KeyIndexFiles#write} lays rows out. */
  private void writeWithFooter(String path, KeyIndexEntry entry, Map<String, String> footer) throws IOException {
    boolean longKeys = entry.longs != null;
    Schema schema = new Schema(
        Types.NestedField.required(1, "key", longKeys ? Types.LongType.get() : Types.BinaryType.get()),
        Types.NestedField.required(2, "pos", Types.IntegerType.get()),
        Types.NestedField.optional(3, "seq", Types.LongType.get()));
    StructType sparkSchema = SparkSchemaUtil.convert(schema);
    try (FileAppender<InternalRow> out = EntryParquetWriter.open(io.newOutputFile(path), schema, sparkSchema, footer, "key")) {
      for (InternalRow row : rows(entry)) {
        out.add(row);
      }
    }
  }

  private static List<InternalRow> rows(KeyIndexEntry entry) {
    List<InternalRow> rows = new ArrayList<>();
    for (int i = 0; i < entry.size(); i++) {
      Object key = entry.longs != null ? (Object) entry.longs[i] : entry.keyBytes(i);
      Object sequence = entry.hasSequences() && !entry.nullSequences[i] ? (Object) entry.sequences[i] : null;
      rows.add(new GenericInternalRow(new Object[] {key, entry.position(i), sequence}));
    }
    return rows;
  }

  private IllegalStateException refused(String path, KeyCodec codec, boolean sequences, long rows) {
    return assertThrows(IllegalStateException.class, () -> KeyIndexFiles.read(io, path, codec, sequences, rows));
  }

  @Test
  void anEntryIsReadOnlyForTheDataFileItIsBoundTo() throws IOException {
    KeyIndexEntry entry = longEntry(20, false, 0, false);
    String a = KeyIndexFiles.binding("s3://b/t/data/a.parquet", 1000, 20, "PARQUET;0;[4]");
    String b = KeyIndexFiles.binding("s3://b/t/data/b.parquet", 1000, 20, "PARQUET;0;[4]");
    String sameNameOtherContent = KeyIndexFiles.binding("s3://b/t/data/a.parquet", 1000, 20, "PARQUET;0;[4, 600]");
    KeyIndexFiles.write(io, path("a.parquet"), entry, "s3://b/t/data/a.parquet", a);
    assertSameEntry(entry, KeyIndexFiles.read(io, path("a.parquet"), LONG_KEY, false, 20, a));
    // Copied to where file b's entry belongs: same row count, valid checksum, and still refused.
    Files.copy(new File(path("a.parquet")).toPath(), new File(path("b.parquet")).toPath());
    IllegalStateException copied =
        assertThrows(IllegalStateException.class, () -> KeyIndexFiles.read(io, path("b.parquet"), LONG_KEY, false, 20, b));
    assertEquals("bound to another data file (s3://b/t/data/a.parquet), not this one", copied.getMessage());
    assertThrows(IllegalStateException.class, () -> KeyIndexFiles.read(io, path("a.parquet"), LONG_KEY, false, 20, sameNameOtherContent));
    // An entry written before entries were bound: refused where a binding is expected (and rebuilt).
    KeyIndexFiles.write(io, path("old.parquet"), entry, "s3://b/t/data/a.parquet");
    IllegalStateException old =
        assertThrows(IllegalStateException.class, () -> KeyIndexFiles.read(io, path("old.parquet"), LONG_KEY, false, 20, a));
    assertEquals("not bound to its data file (written before entries were)", old.getMessage());
  }

  @Test
  void anotherRowCountThanTheDataFilesIsRefused() throws IOException {
    KeyIndexFiles.write(io, path("e.parquet"), longEntry(10, false, 0, false), "d");
    assertEquals("10 rows for a data file of 11", refused(path("e.parquet"), LONG_KEY, false, 11).getMessage());
  }

  @Test
  void aCorruptedChecksumInTheFooterIsRefused() throws IOException {
    KeyIndexEntry entry = longEntry(100, true, 50, true);
    String path = path("e.parquet");
    KeyIndexFiles.write(io, path, entry, "d");
    String checksum = Long.toString(KeyIndexFiles.columnChecksum(entry));
    byte[] bytes = Files.readAllBytes(new File(path).toPath());
    int at = indexOf(bytes, checksum.getBytes(StandardCharsets.US_ASCII));
    assertTrue(at > 0, "the footer holds the column checksum as text");
    bytes[at] = (byte) (bytes[at] == '1' ? '2' : '1'); // one digit, the footer's structure intact
    Files.write(new File(path).toPath(), bytes);
    assertEquals("checksum mismatch", refused(path, LONG_KEY, true, 100).getMessage());
  }

  @Test
  void rowsRewrittenUnderAnotherEntrysFooterAreRefused() throws IOException {
    KeyIndexEntry original = encodedEntry(200, true, 100, false);
    KeyIndexFiles.write(io, path("e.parquet"), original, "d");
    Map<String, String> footer = footer(path("e.parquet"));

    // The same keys with one sequence value changed: a plausible entry, not the one checksummed.
    KeyIndexEntry changed = new KeyIndexEntry(null, original.keyData(), original.keyOffsets(), original.positionArray(),
        original.sequences.clone(), original.nullSequences.clone());
    changed.nullSequences[150] = false;
    changed.sequences[150] = changed.sequences[150] + 1;
    writeWithFooter(path("e.parquet"), changed, footer);
    assertEquals("checksum mismatch", refused(path("e.parquet"), STRING_KEY, true, 200).getMessage());

    // And rows written under the footer they belong to are accepted: the writer above is faithful.
    writeWithFooter(path("e.parquet"), original, footer);
    assertSameEntry(original, KeyIndexFiles.read(io, path("e.parquet"), STRING_KEY, true, 200));
  }

  @Test
  void anEntryWithoutAChecksumIsRefused() throws IOException {
    KeyIndexEntry entry = longEntry(20, false, 0, false);
    KeyIndexFiles.write(io, path("e.parquet"), entry, "d");
    Map<String, String> footer = footer(path("e.parquet"));
    footer.remove(KeyIndexFiles.CHECKSUM);
    footer.remove(KeyIndexFiles.COLUMN_CHECKSUM);
    writeWithFooter(path("e.parquet"), entry, footer);
    assertEquals("no checksum in the footer", refused(path("e.parquet"), LONG_KEY, false, 20).getMessage());
  }

  @Test
  void entriesWithTheRowChecksumOnlyAreVerifiedByIt() throws IOException {
    // Entries of earlier writers carry the row checksum alone.
    KeyIndexEntry entry = encodedEntry(300, true, 300, true);
    KeyIndexFiles.write(io, path("e.parquet"), entry, "d");
    Map<String, String> footer = footer(path("e.parquet"));
    footer.remove(KeyIndexFiles.COLUMN_CHECKSUM);
    footer.remove(KeyIndexFiles.KEY_BYTES); // written before the key bytes were recorded, too
    writeWithFooter(path("e.parquet"), entry, footer);
    assertSameEntry(entry, KeyIndexFiles.read(io, path("e.parquet"), STRING_KEY, true, 300));

    footer.put(KeyIndexFiles.CHECKSUM, Long.toString(KeyIndexFiles.checksum(entry) ^ 1));
    writeWithFooter(path("e.parquet"), entry, footer);
    assertEquals("checksum mismatch", refused(path("e.parquet"), STRING_KEY, true, 300).getMessage());
  }

  @Test
  void aFalseInOrderMarkIsCaughtByTheChecksum() throws IOException {
    // The reader fills positions 0, 1, 2, ... instead of decoding them: the checksum covers the written ones.
    KeyIndexEntry entry = longEntry(100, false, 0, true);
    KeyIndexFiles.write(io, path("e.parquet"), entry, "d");
    Map<String, String> footer = footer(path("e.parquet"));
    footer.put(KeyIndexFiles.POSITIONS, KeyIndexFiles.IN_ORDER);
    writeWithFooter(path("e.parquet"), entry, footer);
    assertEquals("checksum mismatch", refused(path("e.parquet"), LONG_KEY, false, 100).getMessage());
  }

  @Test
  void unsortedKeysAndRepeatedPositionsAreRefusedEvenUnderTheirOwnChecksums() throws IOException {
    // Checksums computed over exactly the rows written: only the reader's own checks can object.
    KeyIndexEntry unsortedLongs = new KeyIndexEntry(new long[] {1, 3, 2}, null, null, new int[] {0, 1, 2}, null, null);
    writeWithFooter(path("a.parquet"), unsortedLongs, checksums(unsortedLongs));
    assertEquals("keys out of order", refused(path("a.parquet"), LONG_KEY, false, 3).getMessage());

    byte[][] keys = {{1, 0, 0}, {3, 0, 0}, {2, 0, 0}};
    KeyIndexEntry unsortedBytes = new KeyIndexEntry(null, new byte[] {1, 0, 0, 3, 0, 0, 2, 0, 0}, new int[] {0, 3, 6, 9},
        new int[] {0, 1, 2}, null, null);
    assertArrayEquals(keys[2], unsortedBytes.keyBytes(2));
    writeWithFooter(path("b.parquet"), unsortedBytes, checksums(unsortedBytes));
    assertEquals("keys out of order", refused(path("b.parquet"), STRING_KEY, false, 3).getMessage());

    KeyIndexEntry repeated = new KeyIndexEntry(new long[] {1, 2, 3}, null, null, new int[] {0, 2, 2}, null, null);
    writeWithFooter(path("c.parquet"), repeated, checksums(repeated));
    assertEquals("positions are not each row once", refused(path("c.parquet"), LONG_KEY, false, 3).getMessage());

    KeyIndexEntry outside = new KeyIndexEntry(new long[] {1, 2, 3}, null, null, new int[] {0, 3, 1}, null, null);
    writeWithFooter(path("d.parquet"), outside, checksums(outside));
    assertEquals("positions are not each row once", refused(path("d.parquet"), LONG_KEY, false, 3).getMessage());
  }

  private static Map<String, String> checksums(KeyIndexEntry entry) {
    Map<String, String> footer = new HashMap<>();
    footer.put(KeyIndexFiles.CHECKSUM, Long.toString(KeyIndexFiles.checksum(entry)));
    footer.put(KeyIndexFiles.COLUMN_CHECKSUM, Long.toString(KeyIndexFiles.columnChecksum(entry)));
    return footer;
  }

  @Test
  void anEntryOfAnotherKeyLayoutIsRefused() throws IOException {
    KeyIndexFiles.write(io, path("e.parquet"), longEntry(10, false, 0, false), "d");
    IllegalStateException refused = refused(path("e.parquet"), STRING_KEY, false, 10);
    assertTrue(refused.getMessage().startsWith("column key is "), refused::getMessage);
  }

  @Test
  void anotherWritersParquetV1PagesAreRefused() throws IOException {
    // The same columns, rows and footer, written by Iceberg's default writer (v1 pages).
    KeyIndexEntry entry = longEntry(50, false, 0, false);
    KeyIndexFiles.write(io, path("e.parquet"), entry, "d");
    Map<String, String> footer = footer(path("e.parquet"));
    Schema schema = new Schema(
        Types.NestedField.required(1, "key", Types.LongType.get()),
        Types.NestedField.required(2, "pos", Types.IntegerType.get()),
        Types.NestedField.optional(3, "seq", Types.LongType.get()));
    StructType sparkSchema = SparkSchemaUtil.convert(schema);
    Parquet.WriteBuilder builder = Parquet.write(io.newOutputFile(path("v1.parquet")))
        .schema(schema).createWriterFunc(type -> SparkParquetWriters.buildWriter(sparkSchema, type));
    for (Map.Entry<String, String> meta : footer.entrySet()) {
      builder = builder.meta(meta.getKey(), meta.getValue());
    }
    try (FileAppender<InternalRow> out = builder.build()) {
      rows(entry).forEach(out::add);
    }
    IllegalStateException refused = refused(path("v1.parquet"), LONG_KEY, false, 50);
    assertTrue(refused.getMessage().contains("pages other than the entry format's (Parquet v2)"), refused::getMessage);
  }

  @Test
  void noCorruptedPageByteReadsAsAnotherEntry() throws IOException {
    // Every byte of every data page flipped in turn: the read must fail or give the entry written
    // (a byte the reader skips, such as the positions under the in-order mark). Long keys and
    // sequence values without NULLs: every page goes through the entry format's own decoder.
    KeyIndexEntry keys = longEntry(100, false, 0, false);
    long[] sequences = new long[100];
    for (int i = 0; i < sequences.length; i++) {
      sequences[i] = 1_000_000L * i + RANDOM.nextInt(1000); // pages of a few hundred bytes: each flip is a read
    }
    KeyIndexEntry entry = new KeyIndexEntry(keys.longs, null, null, keys.positionArray(), sequences, new boolean[100]);
    String path = path("e.parquet");
    KeyIndexFiles.write(io, path, entry, "d");
    byte[] original = Files.readAllBytes(new File(path).toPath());
    int rejected = 0;
    int flipped = 0;
    for (int[] payload : pagePayloads(path, original)) {
      // Past the first 5 bytes: snappy's length preamble sizes the codec's buffer, Parquet's concern.
      for (int at = payload[0] + 5; at < payload[1]; at++) {
        byte[] corrupted = original.clone();
        corrupted[at] ^= (byte) (1 << (at % 8));
        Files.write(new File(path).toPath(), corrupted);
        flipped++;
        KeyIndexEntry read;
        try {
          read = KeyIndexFiles.read(io, path, LONG_KEY, true, 100);
        } catch (Exception e) {
          rejected++;
          continue;
        }
        assertSameEntry(entry, read);
      }
    }
    assertTrue(flipped > 100, "the pages were found: " + flipped + " bytes flipped");
    assertTrue(rejected > flipped / 2, rejected + " of " + flipped + " corruptions rejected");
  }

  /** Where each data page's payload (after its header) lies in the file: {from, to}. */
  private List<int[]> pagePayloads(String path, byte[] file) throws IOException {
    List<int[]> payloads = new ArrayList<>();
    try (ParquetFileReader reader = ParquetFileReader.open(new KeyIndexFiles.ParquetInput(io.newInputFile(path)))) {
      for (BlockMetaData group : reader.getFooter().getBlocks()) {
        for (ColumnChunkMetaData chunk : group.getColumns()) {
          long at = chunk.getStartingPos();
          long end = at + chunk.getTotalSize();
          while (at < end) {
            InputStream in = new ByteArrayInputStream(file, (int) at, (int) (end - at));
            int before = in.available();
            PageHeader header = Util.readPageHeader(in);
            int payloadFrom = (int) at + before - in.available();
            payloads.add(new int[] {payloadFrom, payloadFrom + header.getCompressed_page_size()});
            at = payloadFrom + header.getCompressed_page_size();
          }
        }
      }
    }
    return payloads;
  }

  private static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  // ---- checksums ----

  @Test
  void everyFieldOfAnEntryCountsInBothChecksums() {
    KeyIndexEntry base = encodedEntry(50, true, 50, true);
    List<KeyIndexEntry> changed = new ArrayList<>();
    byte[] data = base.keyData().clone();
    data[data.length / 2] ^= 1;
    changed.add(new KeyIndexEntry(null, data, base.keyOffsets(), base.positionArray(), base.sequences, base.nullSequences));
    int[] positions = base.positionArray().clone();
    int swap = positions[3];
    positions[3] = positions[4];
    positions[4] = swap;
    changed.add(new KeyIndexEntry(null, base.keyData(), base.keyOffsets(), positions, base.sequences, base.nullSequences));
    long[] sequences = base.sequences.clone();
    int valued = 0;
    while (base.nullSequences[valued]) {
      valued++;
    }
    sequences[valued]++;
    changed.add(new KeyIndexEntry(null, base.keyData(), base.keyOffsets(), base.positionArray(), sequences, base.nullSequences));
    // A NULL sequence value is not the value 0.
    long[] zero = base.sequences.clone();
    boolean[] nulls = base.nullSequences.clone();
    zero[valued] = 0;
    KeyIndexEntry withZero = new KeyIndexEntry(null, base.keyData(), base.keyOffsets(), base.positionArray(), zero, base.nullSequences);
    nulls[valued] = true;
    KeyIndexEntry withNull = new KeyIndexEntry(null, base.keyData(), base.keyOffsets(), base.positionArray(), zero, nulls);
    changed.add(withNull);
    for (KeyIndexEntry other : changed) {
      assertNotEquals(KeyIndexFiles.checksum(base), KeyIndexFiles.checksum(other));
      assertNotEquals(KeyIndexFiles.columnChecksum(base), KeyIndexFiles.columnChecksum(other));
    }
    assertNotEquals(KeyIndexFiles.checksum(withZero), KeyIndexFiles.checksum(withNull));
    assertNotEquals(KeyIndexFiles.columnChecksum(withZero), KeyIndexFiles.columnChecksum(withNull));
  }

  @Test
  void whereOneKeyEndsAndTheNextBeginsCountsInBothChecksums() {
    // "ab","c" and "a","bc": the same bytes back to back.
    KeyIndexEntry one = new KeyIndexEntry(null, new byte[] {'a', 'b', 'c'}, new int[] {0, 2, 3}, new int[] {0, 1}, null, null);
    KeyIndexEntry other = new KeyIndexEntry(null, new byte[] {'a', 'b', 'c'}, new int[] {0, 1, 3}, new int[] {0, 1}, null, null);
    assertNotEquals(KeyIndexFiles.checksum(one), KeyIndexFiles.checksum(other));
    assertNotEquals(KeyIndexFiles.columnChecksum(one), KeyIndexFiles.columnChecksum(other));
  }

  @Test
  void checksumsDependOnTheEntryNotOnHowItIsHeld() {
    // The same keys as a slice of a larger array (offsets not starting at 0) checksum the same.
    KeyIndexEntry plain = new KeyIndexEntry(null, new byte[] {1, 2, 3}, new int[] {0, 1, 3}, new int[] {1, 0}, null, null);
    KeyIndexEntry sliced = new KeyIndexEntry(null, new byte[] {9, 9, 1, 2, 3}, new int[] {2, 3, 5}, new int[] {1, 0}, null, null);
    assertEquals(KeyIndexFiles.columnChecksum(plain), KeyIndexFiles.columnChecksum(sliced));
    assertEquals(KeyIndexFiles.checksum(plain), KeyIndexFiles.checksum(sliced));
    // Long keys: more rows than one block of the column checksum holds.
    KeyIndexEntry longs = longEntry(20_000, true, 20_000, true);
    KeyIndexEntry copy = new KeyIndexEntry(longs.longs.clone(), null, null, longs.positionArray().clone(), longs.sequences.clone(),
        longs.nullSequences.clone());
    assertEquals(KeyIndexFiles.columnChecksum(longs), KeyIndexFiles.columnChecksum(copy));
    copy.longs[19_999]++;
    assertNotEquals(KeyIndexFiles.columnChecksum(longs), KeyIndexFiles.columnChecksum(copy), "the last block counts");
  }

  // ---- names ----

  @Test
  void entriesAreNamedByTheirDataFileAndKeyLayout() {
    String hash = KeyIndexFiles.dataFileHash("s3://b/t/data/f.parquet", 1234, 56);
    String layout = KeyIndexFiles.layoutHash(LONG_KEY, null, "");
    assertTrue(hash.matches("[0-9a-f]{40}"), hash);
    assertTrue(layout.matches("[0-9a-f]{16}"), layout);
    assertEquals("s3://b/t/_doris_key_index/" + hash.substring(0, 2) + "/" + hash + "-" + layout + ".parquet",
        KeyIndexFiles.entryLocation("s3://b/t/", hash, layout));
    assertEquals(KeyIndexFiles.entryLocation("s3://b/t", hash, layout), KeyIndexFiles.entryLocation("s3://b/t/", hash, layout));

    // A file rewritten at the same location differs in size or rows: another entry.
    assertEquals(hash, KeyIndexFiles.dataFileHash("s3://b/t/data/f.parquet", 1234, 56));
    assertNotEquals(hash, KeyIndexFiles.dataFileHash("s3://b/t/data/f.parquet", 1235, 56));
    assertNotEquals(hash, KeyIndexFiles.dataFileHash("s3://b/t/data/f.parquet", 1234, 57));
    assertNotEquals(hash, KeyIndexFiles.dataFileHash("s3://b/t/data/g.parquet", 1234, 56));
    // Fields must not run together: ("x1", 23) and ("x", 123) are other files.
    assertNotEquals(KeyIndexFiles.dataFileHash("x1", 23, 4), KeyIndexFiles.dataFileHash("x", 123, 4));

    // Another key, sequence column or name mapping: another layout.
    Types.NestedField sequence = Types.NestedField.optional(9, "seq", Types.LongType.get());
    assertEquals(layout, KeyIndexFiles.layoutHash(LONG_KEY, null, ""));
    assertNotEquals(layout, KeyIndexFiles.layoutHash(STRING_KEY, null, ""));
    assertNotEquals(layout, KeyIndexFiles.layoutHash(LONG_KEY, sequence, ""));
    assertNotEquals(KeyIndexFiles.layoutHash(LONG_KEY, sequence, ""),
        KeyIndexFiles.layoutHash(LONG_KEY, Types.NestedField.optional(9, "seq", Types.IntegerType.get()), ""));
    assertNotEquals(layout, KeyIndexFiles.layoutHash(LONG_KEY, null, "[{\"field-id\":1,\"names\":[\"id\"]}]"));
  }

  // ---- key order within a DELTA_BYTE_ARRAY page ----

  @Test
  void aKeyFollowsInAPageExactlyWhenItSortsAtOrAfterThePreviousOne() {
    // followsInPage judges a key given as the previous key's first `prefix` bytes plus a suffix,
    // for any prefix a writer may share (not only the longest common one).
    for (int round = 0; round < 20_000; round++) {
      byte[] previous = new byte[RANDOM.nextInt(6)];
      byte[] next = new byte[RANDOM.nextInt(6)];
      for (byte[] key : new byte[][] {previous, next}) {
        for (int i = 0; i < key.length; i++) {
          key[i] = (byte) (RANDOM.nextInt(3) * 0x7f);
        }
      }
      if (RANDOM.nextBoolean() && previous.length > 0) { // share a start more often than chance does
        int shared = Math.min(previous.length, next.length);
        System.arraycopy(previous, 0, next, 0, RANDOM.nextInt(shared + 1));
      }
      int common = 0;
      while (common < Math.min(previous.length, next.length) && previous[common] == next[common]) {
        common++;
      }
      int prefix = RANDOM.nextInt(common + 1);
      // The previous key in the middle of a larger array, the suffix in another.
      byte[] data = new byte[previous.length + 4];
      System.arraycopy(previous, 0, data, 2, previous.length);
      byte[] suffixes = new byte[next.length - prefix + 3];
      System.arraycopy(next, prefix, suffixes, 1, next.length - prefix);
      boolean expected = Arrays.compareUnsigned(next, previous) >= 0;
      assertEquals(expected,
          KeyIndexFiles.followsInPage(data, 2, previous.length, prefix, suffixes, 1, next.length - prefix),
          () -> Arrays.toString(previous) + " then " + Arrays.toString(next) + " sharing " + prefix);
    }
    assertFalse(KeyIndexFiles.followsInPage(new byte[] {1, 2}, 0, 2, 1, new byte[0], 0, 0), "a shorter prefix sorts first");
  }
}
