package io.icebergdoris.keyindex;

import io.icebergdoris.keyindex.pages.DirectZstd;
import io.icebergdoris.keyindex.pages.PageBytes;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.CRC32C;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.SupportsPrefixOperations;
import org.apache.iceberg.shaded.org.apache.parquet.bytes.ByteBufferInputStream;
import org.apache.iceberg.shaded.org.apache.parquet.column.ColumnDescriptor;
import org.apache.iceberg.shaded.org.apache.parquet.column.Dictionary;
import org.apache.iceberg.shaded.org.apache.parquet.column.Encoding;
import org.apache.iceberg.shaded.org.apache.parquet.column.ValuesType;
import org.apache.iceberg.shaded.org.apache.parquet.column.page.DataPage;
import org.apache.iceberg.shaded.org.apache.parquet.column.page.DataPageV2;
import org.apache.iceberg.shaded.org.apache.parquet.column.page.DictionaryPage;
import org.apache.iceberg.shaded.org.apache.parquet.column.page.PageReadStore;
import org.apache.iceberg.shaded.org.apache.parquet.column.page.PageReader;
import org.apache.iceberg.shaded.org.apache.parquet.column.values.ValuesReader;
import org.apache.iceberg.shaded.org.apache.parquet.column.values.delta.DeltaBinaryPackingValuesReader;
import org.apache.iceberg.shaded.org.apache.parquet.column.values.rle.RunLengthBitPackingHybridDecoder;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.metadata.FileMetaData;
import org.apache.iceberg.shaded.org.apache.parquet.io.DelegatingSeekableInputStream;
import org.apache.iceberg.shaded.org.apache.parquet.io.SeekableInputStream;
import org.apache.iceberg.shaded.org.apache.parquet.schema.MessageType;
import org.apache.iceberg.shaded.org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Index entries persisted next to the table: one immutable Parquet file per data file (and key
 * layout), rows sorted by key: {@code key} (a long for a single integer-like key column, else
 * binary, the order-preserving encoding),
 * {@code pos} (the row's position in the data file), {@code seq} (its sequence value, tables with a
 * sequence column only). This is the shape of the leaf files of Iceberg's draft secondary-index
 * proposal (Parquet sorted by the indexed value, pointing at rows by file and position) narrowed to
 * one data file per entry, so entries need no maintenance: a data file never changes, and neither
 * does its entry.
 *
 * <p>Where: {@code <table location>/_doris_key_index/<h[0..2]>/<h>-<k>.parquet}, where {@code h}
 * hashes the data file's location, size in bytes and record count (a rewritten file at the same
 * location cannot match unless all three agree) and {@code k} hashes the key layout (field ids
 * and types, sequence column, entry format). Nothing in the name comes from user input. The
 * leading underscore keeps Iceberg's orphan-file removal and Hadoop listings out of the folder;
 * {@link #removeOrphans} removes entries of data files no snapshot references.
 *
 * <p>An entry carries a CRC-32C of its rows in the Parquet footer, computed twice: row by row
 * ({@link #checksum}, which every reader since format 2 verifies) and column by column ({@link
 * #columnChecksum}, cheaper, verified instead when present). A reader that finds a missing or
 * different checksum, a row count other than the data file's, unsorted keys or positions that
 * are not each row once rejects the entry (the load rebuilds it from the data file). The entry of a
 * file sorted by its keys (as loads write them) has positions 0, 1, 2, ... and says so in its
 * footer ({@link #POSITIONS}): a reader fills them rather than decode them, and the checksum,
 * which covers them as written, rejects a false mark.
 *
 * <p>An entry is bound to the data file it describes: its footer holds {@link #BINDING}, a hash of
 * the data file's location, size in bytes, record count and a fingerprint of its content that every
 * manifest carries ({@link #binding(DataFile)}: file format, partition spec, and the offsets of its
 * row groups). A reader verifies it against the file it probes, so an entry copied from another
 * data file (same row count, valid checksum) is rejected and rebuilt, never used. Entries written
 * before the binding have none: they are rejected once and rebuilt in place.
 */
final class KeyIndexFiles {
  static final String FOLDER = "_doris_key_index";
  // 2: an integer key is stored as a long column (1: as its 8 encoded bytes); checksum in blocks.
  static final int FORMAT = 2;
  static final String CHECKSUM = "doris.key-index.crc32c";
  // A second CRC-32C of the same rows, column by column (see columnChecksum): what readers verify
  // when the footer has it, at a fraction of the row checksum's cost. Entries keep the row
  // checksum too, for readers that predate this one; entries without it are verified by that.
  static final String COLUMN_CHECKSUM = "doris.key-index.crc32c-columns";
  static final String DATA_FILE = "doris.key-index.data-file";
  static final String BINDING = "doris.key-index.data-file-binding";
  // The encoded keys' total length, so a reader allocates their array once (entries written
  // before it was recorded are read all the same, into a growing array).
  static final String KEY_BYTES = "doris.key-index.key-bytes";
  // Present (as IN_ORDER) when the entry's positions are 0, 1, 2, ... (a data file sorted by its
  // keys, as loads write them): a reader fills them instead of decoding the column, which is still
  // written (readers that predate the mark decode it) and still covered by the checksum.
  static final String POSITIONS = "doris.key-index.positions";
  static final String IN_ORDER = "in-order";

  private static final VarHandle LONG_BIG_ENDIAN = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
  private static final VarHandle INT_BIG_ENDIAN = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);

  private static final Schema LONG_KEYS = schema(Types.LongType.get());
  private static final Schema ENCODED_KEYS = schema(Types.BinaryType.get());
  private static final StructType SPARK_LONG_KEYS = sparkSchema(DataTypes.LongType);
  private static final StructType SPARK_ENCODED_KEYS = sparkSchema(DataTypes.BinaryType);

  private static Schema schema(org.apache.iceberg.types.Type key) {
    return new Schema(
        Types.NestedField.required(1, "key", key),
        Types.NestedField.required(2, "pos", Types.IntegerType.get()),
        Types.NestedField.optional(3, "seq", Types.LongType.get()));
  }

  private static StructType sparkSchema(org.apache.spark.sql.types.DataType key) {
    return new StructType()
        .add("key", key, false)
        .add("pos", DataTypes.IntegerType, false)
        .add("seq", DataTypes.LongType, true);
  }

  private KeyIndexFiles() {}

  static String folder(String tableLocation) {
    return stripSlash(tableLocation) + "/" + FOLDER;
  }

  /** The name part identifying the data file (location, size, record count). */
  static String dataFileHash(String dataLocation, long sizeInBytes, long recordCount) {
    return sha256(dataLocation + "\n" + sizeInBytes + "\n" + recordCount).substring(0, 40);
  }

  /**
   * The binding of an entry to {@code file}: a hash of its location, size, record count and a
   * fingerprint of its content taken from its Iceberg metadata alone (no read of the data file):
   * its format, partition spec and row-group offsets, which a planned file and the file as its
   * writer returned it both carry (unlike column statistics, which planning may drop).
   */
  static String binding(DataFile file) {
    return binding(file.location(), file.fileSizeInBytes(), file.recordCount(),
        file.format() + ";" + file.specId() + ";" + file.splitOffsets());
  }

  static String binding(String location, long sizeInBytes, long recordCount, String fingerprint) {
    return sha256("binding\n" + location + "\n" + sizeInBytes + "\n" + recordCount + "\n" + fingerprint);
  }

  static String layoutHash(KeyCodec codec, Types.NestedField sequence, String nameMapping) {
    String layout = "format=" + FORMAT + ";key=" + codec.description() + ";seq=" + (sequence == null ? "" : sequence.fieldId() + ":" + sequence.type());
    if (!nameMapping.isEmpty()) {
      // Files without field ids are read through the mapping: another mapping, other entries.
      // (Entries stored before the mapping was honoured are not found under this name either.)
      layout += ";names=" + sha256(nameMapping);
    }
    return sha256(layout).substring(0, 16);
  }

  static String entryLocation(String tableLocation, String dataFileHash, String layoutHash) {
    return folder(tableLocation) + "/" + dataFileHash.substring(0, 2) + "/" + dataFileHash + "-" + layoutHash + ".parquet";
  }

  /** Writes {@code entry} bound to no data file (a reader expecting a binding rejects it). */
  static void write(FileIO io, String path, KeyIndexEntry entry, String dataLocation) throws IOException {
    write(io, path, entry, dataLocation, null);
  }

  /** Writes {@code entry} of the data file {@code binding} names; overwrites a (corrupt) file of the same name. */
  static void write(FileIO io, String path, KeyIndexEntry entry, String dataLocation, String binding) throws IOException {
    boolean longKeys = entry.longs != null;
    StructType sparkSchema = longKeys ? SPARK_LONG_KEYS : SPARK_ENCODED_KEYS;
    // Sorted keys and small positions: Parquet v2's delta encodings shrink them, and snappy costs a
    // fraction of the gzip Iceberg's writer would use by default (which made writing the entries of
    // a 10M-row table's files take seconds). Unique sorted keys and positions gain nothing from a
    // dictionary, and the key's min/max statistics (a compare and, keys being sorted, a copy per
    // key) went unused: without both, writing a 5M-key string entry took 0.72-0.91 s instead of
    // 1.23-1.35 s. Written through EntryParquetWriter: see there why not Iceberg's builder.
    Map<String, String> footer = new LinkedHashMap<>();
    footer.put(CHECKSUM, Long.toString(checksum(entry)));
    footer.put(COLUMN_CHECKSUM, Long.toString(columnChecksum(entry)));
    footer.put(DATA_FILE, dataLocation);
    if (binding != null) {
      footer.put(BINDING, binding);
    }
    footer.put(KEY_BYTES, Long.toString(longKeys ? 0 : entry.keyBytesTotal()));
    if (entry.positionsInOrder()) {
      footer.put(POSITIONS, IN_ORDER);
    }
    FileAppender<InternalRow> appender =
        EntryParquetWriter.open(io.newOutputFile(path), longKeys ? LONG_KEYS : ENCODED_KEYS, sparkSchema, footer, "key");
    try (FileAppender<InternalRow> out = appender) {
      GenericInternalRow row = new GenericInternalRow(3);
      for (int i = 0; i < entry.size(); i++) {
        if (longKeys) {
          row.setLong(0, entry.longs[i]);
        } else {
          row.update(0, entry.keyBytes(i));
        }
        row.setInt(1, entry.position(i));
        if (entry.hasSequences() && !entry.nullSequences[i]) {
          row.setLong(2, entry.sequences[i]);
        } else {
          row.setNullAt(2);
        }
        out.add(row);
      }
    }
  }

  /** Whether {@code positions} are 0, 1, 2, ... in order. */
  static boolean positionsInOrder(int[] positions) {
    for (int i = 0; i < positions.length; i++) {
      if (positions[i] != i) {
        return false;
      }
    }
    return true;
  }

  /** Whether an entry file exists at {@code path}. */
  static boolean exists(FileIO io, String path) {
    return io.newInputFile(path).exists();
  }

  /**
   * Reads and checks an entry; throws (IllegalStateException, IOException, or whatever Parquet
   * raises on a damaged file) if the file is not exactly the entry of a file of {@code rows} rows.
   *
   * <p>Each column's pages are decoded straight into the entry's arrays (one footer read, no row
   * objects, no per-value level bookkeeping): a new session's first load reads every probed file's
   * entry, and Iceberg's row reader made that 3x slower than a warm load at 10M keys.
   */
  static KeyIndexEntry read(FileIO io, String path, KeyCodec codec, boolean withSequence, long rows) throws IOException {
    return read(io, path, codec, withSequence, rows, null);
  }

  /**
   * {@link #read(FileIO, String, KeyCodec, boolean, long)}, and the entry must be bound to the data
   * file {@code binding} names ({@link #binding(DataFile)}; null: not checked).
   */
  static KeyIndexEntry read(FileIO io, String path, KeyCodec codec, boolean withSequence, long rows, String binding)
      throws IOException {
    try (ParquetFileReader reader = ParquetFileReader.open(new ParquetInput(io.newInputFile(path)), DirectZstd.options())) {
      FileMetaData meta = reader.getFooter().getFileMetaData();
      if (binding != null) {
        String bound = meta.getKeyValueMetaData().get(BINDING);
        if (bound == null) {
          throw new IllegalStateException("not bound to its data file (written before entries were)");
        }
        if (!bound.equals(binding)) {
          throw new IllegalStateException(
              "bound to another data file (" + meta.getKeyValueMetaData().get(DATA_FILE) + "), not this one");
        }
      }
      String expectedColumns = meta.getKeyValueMetaData().get(COLUMN_CHECKSUM);
      String expected = meta.getKeyValueMetaData().get(CHECKSUM);
      if (expected == null && expectedColumns == null) {
        throw new IllegalStateException("no checksum in the footer");
      }
      if (reader.getRecordCount() != rows) {
        throw new IllegalStateException(reader.getRecordCount() + " rows for a data file of " + rows);
      }
      if (rows > Integer.MAX_VALUE) {
        throw new IllegalStateException("too many rows for an entry");
      }
      boolean fast = codec.singleLong();
      MessageType schema = meta.getSchema();
      ColumnDescriptor keyColumn = column(schema, "key", fast ? PrimitiveTypeName.INT64 : PrimitiveTypeName.BINARY, 0);
      ColumnDescriptor positionColumn = column(schema, "pos", PrimitiveTypeName.INT32, 0);
      ColumnDescriptor sequenceColumn = withSequence ? column(schema, "seq", PrimitiveTypeName.INT64, 1) : null;
      int count = (int) rows;
      long[] longs = fast ? new long[count] : null;
      EncodedKeys encoded = fast ? null : new EncodedKeys(count, keyBytes(meta.getKeyValueMetaData().get(KEY_BYTES), count));
      int[] positions = new int[count];
      // Filled, not decoded: the checksum below still verifies them against what was written.
      boolean positionsInOrder = IN_ORDER.equals(meta.getKeyValueMetaData().get(POSITIONS));
      if (positionsInOrder) {
        for (int i = 0; i < count; i++) {
          positions[i] = i;
        }
      }
      long[] sequences = withSequence ? new long[count] : null;
      boolean[] nullSequences = withSequence ? new boolean[count] : null;
      int index = 0;
      PageReadStore pages;
      while ((pages = reader.readNextRowGroup()) != null) {
        long groupRows = pages.getRowCount();
        if (index + groupRows > count) {
          throw new IllegalStateException("more rows than the data file");
        }
        Column keys = fast ? Column.longs(longs) : encoded;
        read(pages.getPageReader(keyColumn), keyColumn, keys, index, groupRows);
        if (!positionsInOrder) {
          read(pages.getPageReader(positionColumn), positionColumn, Column.ints(positions), index, groupRows);
        }
        if (withSequence) {
          read(pages.getPageReader(sequenceColumn), sequenceColumn, Column.optionalLongs(sequences, nullSequences), index, groupRows);
        }
        index += (int) groupRows;
      }
      if (index != count) {
        throw new IllegalStateException(index + " rows for a data file of " + count);
      }
      KeyIndexEntry entry =
          fast
              ? new KeyIndexEntry(longs, null, null, positions, sequences, nullSequences)
              : new KeyIndexEntry(null, encoded.data(), encoded.offsets, positions, sequences, nullSequences);
      // Decoding the key pages checked the keys' order, key by key against the one before.
      check(entry, positionsInOrder, encoded != null && encoded.keysInOrder);
      if (expectedColumns != null
          ? !expectedColumns.equals(Long.toString(columnChecksum(entry)))
          : !expected.equals(Long.toString(checksum(entry)))) {
        throw new IllegalStateException("checksum mismatch");
      }
      return entry;
    }
  }

  /** The recorded total of key bytes if it is plausible, else a first guess to grow from. */
  private static int keyBytes(String recorded, int count) {
    try {
      long bytes = recorded == null ? -1 : Long.parseLong(recorded);
      // A wrong figure only costs growing or trimming (the checksum decides); a damaged one must
      // not allocate more than a generous 256 bytes per key.
      if (bytes >= 0 && bytes <= Math.min(Integer.MAX_VALUE - 16, 256L * count)) {
        return (int) bytes;
      }
    } catch (NumberFormatException e) {
      // an entry from another writer: grow instead
    }
    return (int) Math.min(Integer.MAX_VALUE - 16, 16L * count);
  }

  /** The column {@code name} of an entry file, if it has the type (and optionality) this format writes. */
  private static ColumnDescriptor column(MessageType schema, String name, PrimitiveTypeName type, int maxDefinition) {
    if (!schema.containsField(name)) {
      throw new IllegalStateException("no column " + name);
    }
    ColumnDescriptor column = schema.getColumnDescription(new String[] {name});
    if (column.getPrimitiveType().getPrimitiveTypeName() != type || column.getMaxDefinitionLevel() != maxDefinition) {
      throw new IllegalStateException("column " + name + " is " + column.getPrimitiveType() + ", not the entry format's " + type);
    }
    return column;
  }

  /**
   * Decodes one column chunk's pages into {@code into} from row {@code at}: the value decoders of
   * each data page directly, with no per-value level bookkeeping (entries are written with Parquet
   * v2 pages; a file with other pages is not this format).
   */
  private static void read(PageReader pages, ColumnDescriptor column, Column into, int start, long rows) throws IOException {
    String name = column.getPath()[0];
    DictionaryPage dictionaryPage = pages.readDictionaryPage(); // small entries keep dictionary pages
    Dictionary dictionary = dictionaryPage == null ? null : dictionaryPage.getEncoding().initDictionary(column, dictionaryPage);
    int at = start;
    DataPage page;
    while ((page = pages.readPage()) != null) {
      if (!(page instanceof DataPageV2)) {
        throw new IllegalStateException("column " + name + " has pages other than the entry format's (Parquet v2)");
      }
      DataPageV2 data = (DataPageV2) page;
      int values = data.getValueCount();
      if (at + values > start + rows) {
        throw new IllegalStateException("column " + name + " has more values than rows");
      }
      Encoding encoding = data.getDataEncoding();
      // A required column has no nulls whatever the header says (without statistics, Parquet
      // writes -1 there); an optional one must say how many it has.
      int nulls = column.getMaxDefinitionLevel() == 0 ? 0 : data.getNullCount();
      if (nulls < 0 || nulls > values) {
        throw new IllegalStateException("column " + name + " has a page with " + nulls + " nulls in " + values + " values");
      }
      if (nulls == 0 && into.fillDirectly(encoding, data, at, values)) {
        at += values;
        continue;
      }
      ValuesReader decoder;
      if (encoding.usesDictionary()) {
        if (dictionary == null) {
          throw new IllegalStateException("column " + name + " has dictionary pages without a dictionary");
        }
        decoder = encoding.getDictionaryBasedValuesReader(column, ValuesType.VALUES, dictionary);
      } else {
        decoder = encoding.getValuesReader(column, ValuesType.VALUES);
      }
      decoder.initFromPage(values - nulls, ByteBufferInputStream.wrap(data.getData().toByteBuffer()));
      RunLengthBitPackingHybridDecoder defined =
          nulls == 0
              ? null
              : new RunLengthBitPackingHybridDecoder(1, ByteBufferInputStream.wrap(data.getDefinitionLevels().toByteBuffer()));
      into.fill(decoder, defined, at, values);
      at += values;
    }
    if (at != start + rows) {
      throw new IllegalStateException("column " + name + " has " + (at - start) + " values for " + rows + " rows");
    }
  }

  /** Where one column's values go: the entry's arrays. */
  private abstract static class Column {
    abstract void fill(ValuesReader values, RunLengthBitPackingHybridDecoder defined, int at, int count) throws IOException;

    /** Decodes a page without Parquet's value reader, if this column knows its encoding; else false. */
    boolean fillDirectly(Encoding encoding, DataPageV2 page, int at, int count) throws IOException {
      return false;
    }

    static Column longs(long[] into) {
      return new Column() {
        @Override
        void fill(ValuesReader values, RunLengthBitPackingHybridDecoder defined, int at, int count) {
          requireAll(defined);
          for (int i = at; i < at + count; i++) {
            into[i] = values.readLong();
          }
        }
      };
    }

    static Column ints(int[] into) {
      return new Column() {
        @Override
        void fill(ValuesReader values, RunLengthBitPackingHybridDecoder defined, int at, int count) {
          requireAll(defined);
          for (int i = at; i < at + count; i++) {
            into[i] = values.readInteger();
          }
        }
      };
    }

    static Column optionalLongs(long[] into, boolean[] nulls) {
      return new Column() {
        @Override
        void fill(ValuesReader values, RunLengthBitPackingHybridDecoder defined, int at, int count) throws IOException {
          for (int i = at; i < at + count; i++) {
            if (defined == null || defined.readInt() == 1) {
              into[i] = values.readLong();
            } else {
              nulls[i] = true;
            }
          }
        }
      };
    }

    private static void requireAll(RunLengthBitPackingHybridDecoder defined) {
      if (defined != null) {
        throw new IllegalStateException("a required entry column holds nulls");
      }
    }
  }

  /**
   * The encoded keys of an entry, decoded into one growing array (held as {@link PrefixedKeys} once read).
   *
   * <p>Pages in DELTA_BYTE_ARRAY (what {@link #write} gives binary keys, having no dictionary;
   * earlier entries have it once their dictionary filled) are decoded here: the prefix lengths and suffix lengths (each
   * DELTA_BINARY_PACKED), then the suffixes back to back; each key is its predecessor's prefix
   * (within the page) plus its suffix, copied straight into place. Parquet's own reader made
   * two objects and two copies per key. Other encodings (earlier entries' dictionary pages) go through it.
   */
  private static final class EncodedKeys extends Column {
    private byte[] data;
    final int[] offsets; // offsets[i + 1] is where key i ends
    // Whether every page was decoded here, which checks each key against the one before it.
    boolean keysInOrder = true;

    EncodedKeys(int count, int expectedBytes) {
      offsets = new int[count + 1];
      data = new byte[expectedBytes];
    }

    byte[] data() {
      int size = offsets[offsets.length - 1];
      return data.length == size ? data : Arrays.copyOf(data, size);
    }

    /** Room for {@code more} bytes after {@code end}. */
    private void grow(int end, int more) {
      long needed = (long) end + more;
      if (needed > Integer.MAX_VALUE - 16) {
        throw new IllegalStateException("the keys hold more bytes than one entry array");
      }
      if (needed > data.length) {
        data = Arrays.copyOf(data, (int) Math.min(Integer.MAX_VALUE - 16, Math.max(needed, 2L * data.length)));
      }
    }

    @Override
    void fill(ValuesReader values, RunLengthBitPackingHybridDecoder defined, int at, int count) {
      Column.requireAll(defined);
      keysInOrder = false; // left to the entry's check
      int end = offsets[at];
      for (int i = at; i < at + count; i++) {
        org.apache.iceberg.shaded.org.apache.parquet.io.api.Binary key = values.readBytes();
        int length = key.length();
        grow(end, length);
        key.toByteBuffer().get(data, end, length);
        end += length;
        offsets[i + 1] = end;
      }
    }

    @Override
    boolean fillDirectly(Encoding encoding, DataPageV2 page, int at, int count) throws IOException {
      if (encoding != Encoding.DELTA_BYTE_ARRAY) {
        return false;
      }
      ByteBufferInputStream in = ByteBufferInputStream.wrap(page.getData().toByteBuffer());
      DeltaBinaryPackingValuesReader prefixes = new DeltaBinaryPackingValuesReader();
      prefixes.initFromPage(count, in);
      DeltaBinaryPackingValuesReader suffixes = new DeltaBinaryPackingValuesReader();
      suffixes.initFromPage(count, in);
      PageBytes suffixBytes = PageBytes.of(in.slice((int) in.available()));
      byte[] bytes = suffixBytes.bytes;
      int from = suffixBytes.from;
      int limit = suffixBytes.limit;
      int end = offsets[at];
      int previous = -1; // where the page's previous key starts (none yet)
      for (int i = at; i < at + count; i++) {
        int prefix = prefixes.readInteger();
        int suffix = suffixes.readInteger();
        int previousLength = previous < 0 ? 0 : end - previous;
        if (prefix < 0 || prefix > previousLength || suffix < 0 || suffix > limit - from) {
          throw new IllegalStateException("a damaged key page (prefix " + prefix + ", suffix " + suffix + ")");
        }
        if (previous >= 0 && !followsInPage(data, previous, previousLength, prefix, bytes, from, suffix)) {
          throw new IllegalStateException("keys out of order");
        }
        grow(end, prefix + suffix);
        System.arraycopy(data, previous < 0 ? end : previous, data, end, prefix);
        System.arraycopy(bytes, from, data, end + prefix, suffix);
        from += suffix;
        if (previous < 0 && i > 0 && Arrays.compareUnsigned(data, offsets[i - 1], end, data, end, end + prefix + suffix) > 0) {
          throw new IllegalStateException("keys out of order"); // the page's first key against the last page's last
        }
        previous = end;
        end += prefix + suffix;
        offsets[i + 1] = end;
      }
      if (from != limit) {
        throw new IllegalStateException("a key page holds bytes past its last key");
      }
      return true;
    }
  }

  /**
   * Whether a key of the previous key's first {@code prefix} bytes and the {@code suffix} bytes at
   * {@code bytes[from]} sorts at or after that previous key ({@code previousLength} bytes at
   * {@code data[previous]}). The shared prefix needs no comparing: one byte usually decides.
   */
  static boolean followsInPage(byte[] data, int previous, int previousLength, int prefix, byte[] bytes, int from, int suffix) {
    if (prefix == previousLength) {
      return true; // the previous key is a prefix of this one, or equal to it
    }
    if (suffix == 0) {
      return false; // this key is a shorter prefix of the previous one
    }
    int mine = bytes[from] & 0xff;
    int theirs = data[previous + prefix] & 0xff;
    if (mine != theirs) {
      return mine > theirs;
    }
    // A writer may share less than the longest common prefix: compare the rest.
    return Arrays.compareUnsigned(data, previous + prefix, previous + previousLength, bytes, from, from + suffix) <= 0;
  }

  private static void check(KeyIndexEntry entry, boolean positionsInOrder, boolean keysInOrder) {
    if (positionsInOrder && keysInOrder) {
      return;
    }
    boolean[] seen = positionsInOrder ? null : new boolean[entry.size()]; // filled in order: each row once
    for (int i = 0; i < entry.size(); i++) {
      if (seen != null) {
        int position = entry.position(i);
        if (position < 0 || position >= seen.length || seen[position]) {
          throw new IllegalStateException("positions are not each row once");
        }
        seen[position] = true;
      }
      if (i > 0 && !keysInOrder) {
        if (entry.compare(i - 1, entry, i) > 0) {
          throw new IllegalStateException("keys out of order");
        }
      }
    }
  }

  /**
   * CRC-32C of the entry's columns, each whole in turn: the keys (an integer key as 8 bytes; encoded
   * keys as their bytes back to back, then where each one ends in them as 4 bytes), the positions
   * (4 bytes each) and, with a sequence column, a flag byte per row (1: it has a value) and the
   * values (8 bytes each, 0 for none); numbers big-endian. It covers what {@link #checksum} covers,
   * but copies whole arrays into the CRC instead of laying out each row: reading a 5M-key string
   * entry spent a fifth of its time on the row checksum.
   */
  static long columnChecksum(KeyIndexEntry entry) {
    CRC32C crc = new CRC32C();
    byte[] block = new byte[1 << 16];
    int size = entry.size();
    if (entry.longs != null) {
      feed(crc, block, size, 8, (at, count) -> ByteBuffer.wrap(block).asLongBuffer().put(entry.longs, at, count));
    } else {
      // The keys' bytes back to back, then where each one ends in them.
      int at = 0;
      for (int i = 0; i < size; i++) {
        int length = entry.keyLength(i);
        if (block.length - at < length) {
          crc.update(block, 0, at);
          at = 0;
          if (block.length < length) {
            crc.update(entry.keyBytes(i)); // a key longer than the block
            continue;
          }
        }
        at += entry.copyKey(i, block, at);
      }
      crc.update(block, 0, at);
      long[] end = {0};
      feed(crc, block, size, 4, (from, count) -> {
        for (int i = 0; i < count; i++) {
          end[0] += entry.keyLength(from + i);
          INT_BIG_ENDIAN.set(block, i * 4, (int) end[0]);
        }
      });
    }
    feed(crc, block, size, 4, (from, count) -> {
      for (int i = 0; i < count; i++) {
        INT_BIG_ENDIAN.set(block, i * 4, entry.position(from + i));
      }
    });
    if (entry.hasSequences()) {
      feed(crc, block, size, 1, (at, count) -> {
        for (int i = 0; i < count; i++) {
          block[i] = (byte) (entry.nullSequences[at + i] ? 0 : 1);
        }
      });
      feed(crc, block, size, 8, (at, count) -> {
        for (int i = 0; i < count; i++) {
          LONG_BIG_ENDIAN.set(block, i * 8, entry.nullSequences[at + i] ? 0L : entry.sequences[at + i]);
        }
      });
    }
    return crc.getValue();
  }

  /** Lays out elements [at, at + count) of a column at the start of a block. */
  private interface BlockFill {
    void fill(int at, int count);
  }

  /** Feeds a column of {@code size} elements of {@code width} bytes to {@code crc}, a block at a time. */
  private static void feed(CRC32C crc, byte[] block, int size, int width, BlockFill column) {
    for (int at = 0; at < size; ) {
      int count = Math.min(size - at, block.length / width);
      column.fill(at, count);
      crc.update(block, 0, count * width);
      at += count;
    }
  }

  /**
   * CRC-32C of the entry's rows in order: per row the key (8 bytes for an integer key, else its
   * length and bytes), the position, a flag and the sequence value (0 without one), all numbers
   * big-endian, fed in blocks. The rows are laid out in a plain byte array through byte-array
   * views: a heap ByteBuffer's per-value position bookkeeping and scope checks made this a third
   * of reading a 5M-key entry (a new session's first load reads every probed file's entry).
   */
  static long checksum(KeyIndexEntry entry) {
    CRC32C crc = new CRC32C();
    byte[] block = new byte[1 << 16];
    int at = 0;
    boolean encoded = entry.longs == null;
    boolean sequences = entry.hasSequences();
    for (int i = 0; i < entry.size(); i++) {
      int length = encoded ? entry.keyLength(i) : 0;
      int needed = (encoded ? 4 + length : 8) + 13;
      if (block.length - at < needed) {
        crc.update(block, 0, at);
        at = 0;
        if (block.length < needed) {
          block = new byte[needed]; // a key longer than the block
        }
      }
      if (encoded) {
        INT_BIG_ENDIAN.set(block, at, length);
        entry.copyKey(i, block, at + 4);
        at += 4 + length;
      } else {
        LONG_BIG_ENDIAN.set(block, at, entry.longs[i]);
        at += 8;
      }
      boolean hasValue = sequences && !entry.nullSequences[i];
      INT_BIG_ENDIAN.set(block, at, entry.position(i));
      block[at + 4] = (byte) (hasValue ? 1 : 0);
      LONG_BIG_ENDIAN.set(block, at + 5, hasValue ? entry.sequences[i] : 0L);
      at += 13;
    }
    crc.update(block, 0, at);
    return crc.getValue();
  }

  /**
   * Deletes the entries under {@code table}'s index folder whose data file is not among
   * {@code referenced} (rows of file_path, file_size_in_bytes, record_count: e.g. the table's
   * {@code all_data_files}); returns how many. Tables whose FileIO cannot list prefixes keep theirs.
   */
  public static long removeOrphans(Table table, Dataset<Row> referenced) {
    FileIO io = table.io();
    if (!(io instanceof SupportsPrefixOperations)) {
      return 0;
    }
    Set<String> live = new HashSet<>();
    for (Row row : referenced.collectAsList()) {
      live.add(dataFileHash(row.getString(0), row.getLong(1), row.getLong(2)));
    }
    String prefix = folder(table.location()) + "/";
    List<String> orphans = new ArrayList<>();
    try {
      for (FileInfo file : ((SupportsPrefixOperations) io).listPrefix(prefix)) {
        String name = file.location().substring(file.location().lastIndexOf('/') + 1);
        int dash = name.indexOf('-');
        if (!live.contains(dash > 0 ? name.substring(0, dash) : name)) {
          orphans.add(file.location());
        }
      }
    } catch (UncheckedIOException e) {
      if (e.getCause() instanceof FileNotFoundException) {
        return 0; // no entry was ever written (listing a missing folder fails only once iterated)
      }
      throw e;
    }
    for (String orphan : orphans) {
      io.deleteFile(orphan);
    }
    return orphans.size();
  }

  private static String stripSlash(String location) {
    return location.endsWith("/") ? location.substring(0, location.length() - 1) : location;
  }

  private static String sha256(String text) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      StringBuilder hex = new StringBuilder();
      for (byte b : digest) {
        hex.append(String.format("%02x", b));
      }
      return hex.toString();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Parquet's view of an Iceberg InputFile, to read the footer through the table's FileIO. */
  static final class ParquetInput implements org.apache.iceberg.shaded.org.apache.parquet.io.InputFile {
    private final InputFile file;

    ParquetInput(InputFile file) {
      this.file = file;
    }

    @Override
    public long getLength() {
      return file.getLength();
    }

    @Override
    public SeekableInputStream newStream() {
      org.apache.iceberg.io.SeekableInputStream stream = file.newStream();
      return new DelegatingSeekableInputStream(stream) {
        @Override
        public long getPos() throws IOException {
          return stream.getPos();
        }

        @Override
        public void seek(long newPos) throws IOException {
          stream.seek(newPos);
        }
      };
    }
  }
}
